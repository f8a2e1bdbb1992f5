# Writing a variable: the program reads magic at its end and exits 7 when it is 7.
break poke
continue
print magic
# expect: \$1 = 1
set var magic = 7
print magic
# expect: \$2 = 7
delete
continue
# expect: exited with code 07
# exit: 7
