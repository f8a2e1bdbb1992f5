# General and vector registers (the fpu feature's v0-v31 with their views), and writing one.
break vectors_loaded
continue
# expect: Breakpoint 1, vectors_loaded \(\)
info registers pc sp x30
# expect: pc +0x[0-9a-f]+ +0x[0-9a-f]+ <vectors_loaded(\+\d+)?>
# expect: sp +0x[0-9a-f]+
# expect: x30 +0x[0-9a-f]+ +\d+
info registers v0
# expect: v0 +\{d = \{f = .*u = \{0x5a5a5a5a5a5a5a5a, 0x5a5a5a5a5a5a5a5a\}
print/x $v1.s.u
# expect: = \{0x11, 0x11, 0x11, 0x11\}
print $fpsr
print $fpcr
# expect: \$\d+ = \d+
set $x9 = 0x1234abcd
print/x $x9
# expect: = 0x1234abcd
info registers cpsr
# expect: cpsr +0x[0-9a-f]+ +
delete
continue
# expect: exited normally
# exit: 0
