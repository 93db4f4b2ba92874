package verdict

import "syscall"

const syscallNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
