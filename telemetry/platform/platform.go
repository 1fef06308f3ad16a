// Package platform fingerprints the machine platbench runs on: CPU model and
// microarchitecture, topology, RAM, kernel, virtualisation, cloud instance
// type and block devices. Everything comes from local files (/proc, /sys,
// DMI) and the CPUID instruction; it makes no network calls, so a cloud
// instance type is known only when the hypervisor publishes it in DMI (AWS
// Nitro does; GCE and Azure do not).
//
// Fingerprint never fails: a figure it cannot read is left empty.
package platform

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/result"
)

// Fingerprint describes the machine this process runs on.
func Fingerprint() result.Platform {
	p := fingerprintAt("/")
	if h, err := os.Hostname(); err == nil {
		p.Hostname = h
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err == nil {
		p.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	p.Virtualization, p.Cloud, p.InstanceType = virtualization("/", cpuidHypervisor())
	return p
}

// fingerprintAt reads everything that lives in files below root (a fake root
// in tests). Hostname, kernel and virtualisation are filled by Fingerprint.
func fingerprintAt(root string) result.Platform {
	p := result.Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}
	if name := osRelease(root); name != "" {
		p.OS = runtime.GOOS + " (" + name + ")"
	}
	ci := readCPUInfo(filepath.Join(root, "proc/cpuinfo"))
	p.CPUModel, p.CPUVendor, p.Microarch = ci.model, ci.vendor, ci.microarch()
	p.Sockets, p.Cores, p.Threads = topology(root, ci)
	if p.Threads == 0 {
		p.Threads = runtime.NumCPU()
	}
	if p.Cores == 0 {
		// Neither sysfs nor cpuinfo tell the cores apart (some VMs):
		// count every logical CPU as a core rather than report none.
		p.Cores = p.Threads
	}
	p.NUMANodes = countDirs(filepath.Join(root, "sys/devices/system/node"), "node")
	p.RAMBytes = memTotal(filepath.Join(root, "proc/meminfo"))
	if l := cgroupMemLimit(root); l > 0 && (p.RAMBytes <= 0 || l < p.RAMBytes) {
		p.MemLimitBytes = l
	}
	p.Disks = disks(root)
	return p
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func osRelease(root string) string {
	for _, f := range []string{"etc/os-release", "usr/lib/os-release"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				return strings.Trim(v, `"'`)
			}
		}
	}
	return ""
}

// cpuInfo is what /proc/cpuinfo says about the first processor, plus the
// counts it implies.
type cpuInfo struct {
	model, vendor       string
	family, modelNum    int
	stepping            int
	implementer, part   int // Arm MIDR fields; -1 when absent
	processors          int
	physIDs             map[string]bool
	coreIDs             map[string]bool // "physid/coreid"
	hasFamily, hasModel bool
}

func readCPUInfo(path string) cpuInfo {
	ci := cpuInfo{implementer: -1, part: -1, physIDs: map[string]bool{}, coreIDs: map[string]bool{}}
	f, err := os.Open(path)
	if err != nil {
		return ci
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var phys string
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		first := ci.processors <= 1
		switch k {
		case "processor":
			ci.processors++
		case "model name", "Model", "cpu model":
			if ci.model == "" {
				ci.model = v
			}
		case "vendor_id":
			if ci.vendor == "" {
				ci.vendor = v
			}
		case "cpu family":
			if first && !ci.hasFamily {
				ci.family, _ = strconv.Atoi(v)
				ci.hasFamily = true
			}
		case "model":
			if first && !ci.hasModel {
				ci.modelNum, _ = strconv.Atoi(v)
				ci.hasModel = true
			}
		case "stepping":
			if first {
				ci.stepping, _ = strconv.Atoi(v)
			}
		case "CPU implementer":
			if ci.implementer < 0 {
				n, _ := strconv.ParseInt(v, 0, 32)
				ci.implementer = int(n)
			}
		case "CPU part":
			if ci.part < 0 {
				n, _ := strconv.ParseInt(v, 0, 32)
				ci.part = int(n)
			}
		case "physical id":
			phys = v
			ci.physIDs[v] = true
		case "core id":
			ci.coreIDs[phys+"/"+v] = true
		}
	}
	if ci.vendor == "" && ci.implementer >= 0 {
		ci.vendor = armImplementers[ci.implementer]
	}
	if ci.model == "" && ci.implementer >= 0 {
		// Arm kernels print no model name; the MIDR part is the name.
		if m := armPart(ci.implementer, ci.part); m != "" {
			ci.model = ci.vendor + " " + m
		}
	}
	return ci
}

func (ci cpuInfo) microarch() string {
	switch {
	case ci.implementer >= 0:
		return armPart(ci.implementer, ci.part)
	case ci.vendor == "GenuineIntel" && ci.hasFamily:
		return intelMicroarch(ci.family, ci.modelNum, ci.stepping)
	case (ci.vendor == "AuthenticAMD" || ci.vendor == "HygonGenuine") && ci.hasFamily:
		return amdMicroarch(ci.family, ci.modelNum)
	}
	return ""
}

// topology counts sockets, physical cores and logical CPUs from sysfs
// (cpu*/topology), falling back to /proc/cpuinfo's physical id / core id.
func topology(root string, ci cpuInfo) (sockets, cores, threads int) {
	base := filepath.Join(root, "sys/devices/system/cpu")
	ents, _ := os.ReadDir(base)
	pkgs, cs := map[string]bool{}, map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, "cpu") {
			continue
		}
		if _, err := strconv.Atoi(n[3:]); err != nil {
			continue
		}
		topo := filepath.Join(base, n, "topology")
		pkg := readTrim(filepath.Join(topo, "physical_package_id"))
		if pkg == "" {
			continue // offline CPUs have no topology
		}
		threads++
		pkgs[pkg] = true
		// core_cpus_list (thread siblings) identifies a physical core on
		// every arch, even where core_id repeats across dies or clusters.
		core := readTrim(filepath.Join(topo, "core_cpus_list"))
		if core == "" {
			core = readTrim(filepath.Join(topo, "thread_siblings_list"))
		}
		if core == "" {
			core = readTrim(filepath.Join(topo, "core_id"))
		}
		cs[pkg+"/"+core] = true
	}
	if threads > 0 {
		return len(pkgs), len(cs), threads
	}
	return len(ci.physIDs), len(ci.coreIDs), ci.processors
}

func countDirs(dir, prefix string) int {
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if s, ok := strings.CutPrefix(e.Name(), prefix); ok {
			if _, err := strconv.Atoi(s); err == nil {
				n++
			}
		}
	}
	return n
}

func memTotal(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// disks lists whole block devices, skipping loop, ram and zram devices and
// empty drives; partitions are not listed by /sys/block.
func disks(root string) []result.Disk {
	base := filepath.Join(root, "sys/block")
	ents, _ := os.ReadDir(base)
	var out []result.Disk
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "loop") || strings.HasPrefix(n, "ram") || strings.HasPrefix(n, "zram") {
			continue
		}
		dir := filepath.Join(base, n)
		sectors, _ := strconv.ParseInt(readTrim(filepath.Join(dir, "size")), 10, 64)
		if sectors == 0 {
			continue
		}
		d := result.Disk{Name: n, SizeBytes: sectors * 512, Rotational: readTrim(filepath.Join(dir, "queue/rotational")) == "1"}
		d.Model = strings.Join(strings.Fields(readTrim(filepath.Join(dir, "device/model"))), " ")
		if d.Model == "" {
			// virtio and xen disks have no model; the driver says what it is.
			if l, err := os.Readlink(filepath.Join(dir, "device/driver")); err == nil {
				d.Model = filepath.Base(l)
			}
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// cgroupMemLimit is the lowest memory limit of this process's cgroup and
// the cgroups above it, below root: cgroup v2's memory.max on the unified
// hierarchy, else v1's memory.limit_in_bytes; 0 when there is none (v2's
// "max", v1's near-2^63 "unlimited", no cgroup file system).
func cgroupMemLimit(root string) int64 {
	b, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return 0
	}
	var best int64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var dir, file string
		switch {
		case f[0] == "0" && f[1] == "":
			dir, file = filepath.Join(root, "sys/fs/cgroup"), "memory.max"
			if _, err := os.Stat(filepath.Join(dir, "cgroup.controllers")); err != nil {
				dir = filepath.Join(root, "sys/fs/cgroup/unified") // a hybrid host's v2 tree
			}
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			dir, file = filepath.Join(root, "sys/fs/cgroup/memory"), "memory.limit_in_bytes"
		default:
			continue
		}
		for p := filepath.Join(dir, f[2]); strings.HasPrefix(p, dir); p = filepath.Dir(p) {
			if l := limitIn(filepath.Join(p, file)); l > 0 && (best == 0 || l < best) {
				best = l
			}
			if p == dir {
				break
			}
		}
	}
	return best
}

// limitIn reads a cgroup memory limit file: bytes, or 0 for none ("max",
// or v1's page-rounded 2^63-1 and anything from 2^62 up).
func limitIn(path string) int64 {
	v, err := strconv.ParseInt(readTrim(path), 10, 64)
	if err != nil || v <= 0 || v >= 1<<62 {
		return 0
	}
	return v
}
