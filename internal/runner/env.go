package runner

import (
	"bufio"
	"litebench/internal/limits"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"litebench/internal/results"
	"litebench/internal/target"
)

// Version is litebench's version, set at link time or read from build info.
var Version = "dev"

func version() string {
	if Version != "dev" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "dev-" + s.Value[:12]
			}
		}
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			return bi.Main.Version
		}
	}
	return Version
}

// moduleVersion is the version of the module at path linked into this
// binary ("" when unknown).
func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}

// Fingerprint describes the machine and target a run ran on.
func Fingerprint(t target.Target, sqliteVersion, dir string) results.Env {
	e := results.Env{
		Target: t.Name(), API: t.API(), Module: t.Module(), SQLiteVersion: sqliteVersion,
		OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion: runtime.Version(), Litebench: version(), BenchDir: dir,
		CPUModel: cpuModel(), Filesystem: filesystem(dir), Kernel: kernel(),
	}
	e.Hostname, _ = os.Hostname()
	if l := limits.Current(); l.CPUs > 0 || l.MemoryBytes > 0 {
		e.Limits = map[string]string{}
		if l.CPUs > 0 {
			e.Limits["cpus"] = strconv.Itoa(l.CPUs)
			e.Limits["cpu_list"] = l.CPUList
		}
		if l.MemoryBytes > 0 {
			e.Limits["memory_bytes"] = strconv.FormatInt(l.MemoryBytes, 10)
			e.Limits["cgroup"] = l.Cgroup
		}
	}
	return e
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

var fsNames = map[int64]string{
	0xEF53: "ext4", 0x01021994: "tmpfs", 0x58465342: "xfs", 0x9123683E: "btrfs",
	0x794c7630: "overlayfs", 0x6969: "nfs", 0x2fc12fc1: "zfs", 0xF2F52010: "f2fs",
	0x65735546: "fuse", 0x5346544e: "ntfs", 0x4d44: "vfat", 0x858458f6: "ramfs", 0x01021997: "9p",
}

func filesystem(dir string) string {
	if dir == "" {
		dir = "."
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return ""
	}
	if n, ok := fsNames[int64(st.Type)]; ok {
		return n
	}
	return "0x" + strings.ToLower(strings.TrimLeft(hex64(uint64(st.Type)), "0"))
}

func hex64(v uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&0xf]
		v >>= 4
	}
	return string(b[:])
}
