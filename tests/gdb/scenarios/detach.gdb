# detach: breakpoints go, and the program runs to its end by itself.
break add
continue
# expect: Breakpoint 1, add \(a=0, b=10\)
detach
# expect: \[Inferior 1 \(.*\) detached\]
# exit: 0
