package crashfs

import "os/exec"

var execLookPath = exec.LookPath
