package limits

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// MemTotal is the machine's physical memory in bytes (MemTotal in
// /proc/meminfo), 0 when unknown.
func MemTotal() int64 { return meminfo("MemTotal:") }

// meminfo reads one field of /proc/meminfo in bytes, 0 when unknown.
func meminfo(field string) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// FreeDisk is the bytes an unprivileged process may still write on the
// file system that holds dir, -1 when unknown.
func FreeDisk(dir string) int64 {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// SizeText writes n bytes for a message: 512KiB, 64MiB, 1.5GiB.
func SizeText(n int64) string { return sizeText(n) }
