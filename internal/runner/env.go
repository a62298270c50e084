package runner

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/litebench/litebench/internal/limits"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/target"
)

// Release is the version this source tree carries; it is the tag a
// release of it gets (git tag vRELEASE).
const Release = "v0.3.0"

// Version overrides the reported version when set at link time
// (-ldflags "-X .../internal/runner.Version=v1.2.3").
var Version = ""

// BuildVersion is litebench's version and the commit it was built from:
// the module version when installed with 'go install MODULE@VERSION',
// Release plus the commit when built from a checkout.
func BuildVersion() (ver, commit string, dirty bool) {
	ver = Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if ver == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" && !strings.Contains(bi.Main.Version, "0.0.0-") {
			ver = strings.TrimSuffix(bi.Main.Version, "+dirty")
		}
	}
	if ver == "" {
		ver = Release + "-dev"
	}
	return ver, commit, dirty
}

func version() string {
	v, c, dirty := BuildVersion()
	if c != "" {
		if len(c) > 12 {
			c = c[:12]
		}
		v += "+" + c
		if dirty {
			v += ".dirty"
		}
	}
	return v
}

// ClientVersion is the version of t's driver: the Go module's linked into
// this binary, or what a worker process of another language says of its
// driver ("" when unknown).
func ClientVersion(t target.Target) string {
	if v, ok := t.Client().(interface{ ClientVersion() string }); ok {
		return v.ClientVersion()
	}
	return moduleVersion(t.Module())
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
