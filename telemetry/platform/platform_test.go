package platform

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/platbench/platbench/result"
)

func TestFingerprintThisMachine(t *testing.T) {
	p := Fingerprint()
	for name, v := range map[string]string{
		"hostname": p.Hostname, "os": p.OS, "arch": p.Arch, "cpu_model": p.CPUModel,
		"kernel": p.Kernel, "virtualization": p.Virtualization,
	} {
		if v == "" {
			t.Errorf("%s is empty", name)
		}
	}
	if p.Threads <= 0 || p.Cores <= 0 || p.Cores > p.Threads {
		t.Errorf("cores %d threads %d: want 0 < cores <= threads", p.Cores, p.Threads)
	}
	if p.RAMBytes < 64<<20 {
		t.Errorf("ram_bytes %d: implausible", p.RAMBytes)
	}
	t.Logf("%+v", p)
}

// writeTree creates files below a temporary root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFingerprintFixtures(t *testing.T) {
	cases := []struct {
		name                    string
		files                   map[string]string
		cpuid                   string
		model, vendor, uarch    string
		sockets, cores, threads int
		virt, cloud, instance   string
	}{
		{
			// Graviton2 VM: arm64 prints no model name; DMI carries the instance type.
			name: "aws graviton2",
			files: map[string]string{
				"proc/cpuinfo": "processor\t: 0\nBogoMIPS\t: 243.75\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\nprocessor\t: 1\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n",
				"sys/devices/system/cpu/cpu0/topology/physical_package_id": "0\n",
				"sys/devices/system/cpu/cpu0/topology/core_cpus_list":      "0\n",
				"sys/devices/system/cpu/cpu1/topology/physical_package_id": "0\n",
				"sys/devices/system/cpu/cpu1/topology/core_cpus_list":      "1\n",
				"sys/class/dmi/id/sys_vendor":                              "Amazon EC2\n",
				"sys/class/dmi/id/product_name":                            "m6g.large\n",
			},
			model: "ARM Neoverse N1", vendor: "ARM", uarch: "Neoverse N1",
			sockets: 1, cores: 2, threads: 2,
			virt: "Amazon EC2 Nitro", cloud: "aws", instance: "m6g.large",
		},
		{
			// Intel bare metal with hyper-threading: 2 threads share core_cpus_list.
			name: "aws i3.metal cascade lake",
			files: map[string]string{
				"proc/cpuinfo": "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz\nstepping\t: 7\n",
				"sys/devices/system/cpu/cpu0/topology/physical_package_id": "0\n",
				"sys/devices/system/cpu/cpu0/topology/core_cpus_list":      "0,2\n",
				"sys/devices/system/cpu/cpu2/topology/physical_package_id": "0\n",
				"sys/devices/system/cpu/cpu2/topology/core_cpus_list":      "0,2\n",
				"sys/devices/system/cpu/cpu1/topology/physical_package_id": "1\n",
				"sys/devices/system/cpu/cpu1/topology/core_cpus_list":      "1,3\n",
				"sys/devices/system/cpu/cpu3/topology/physical_package_id": "1\n",
				"sys/devices/system/cpu/cpu3/topology/core_cpus_list":      "1,3\n",
				"sys/class/dmi/id/sys_vendor":                              "Amazon EC2\n",
				"sys/class/dmi/id/product_name":                            "i3.metal\n",
			},
			model: "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz", vendor: "GenuineIntel", uarch: "Cascade Lake",
			sockets: 2, cores: 2, threads: 4,
			virt: "none", cloud: "aws", instance: "i3.metal",
		},
		{
			// Xen-era EC2 (m4, c4...): the BIOS version says amazon, no instance type.
			name: "aws xen",
			files: map[string]string{
				"proc/cpuinfo":                  "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 79\nmodel name\t: Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz\nstepping\t: 1\n",
				"sys/hypervisor/type":           "xen\n",
				"sys/class/dmi/id/sys_vendor":   "Xen\n",
				"sys/class/dmi/id/product_name": "HVM domU\n",
				"sys/class/dmi/id/bios_version": "4.11.amazon\n",
			},
			cpuid: "XenVMMXenVMM",
			model: "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz", vendor: "GenuineIntel", uarch: "Broadwell",
			cores: 1, threads: 1,
			virt: "Xen", cloud: "aws",
		},
		{
			name: "gce kvm in docker",
			files: map[string]string{
				"proc/cpuinfo":                  "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC 9B14\nstepping\t: 1\nphysical id\t: 0\ncore id\t\t: 0\n",
				"sys/class/dmi/id/sys_vendor":   "Google\n",
				"sys/class/dmi/id/product_name": "Google Compute Engine\n",
				".dockerenv":                    "",
			},
			cpuid: "KVMKVMKVM",
			model: "AMD EPYC 9B14", vendor: "AuthenticAMD", uarch: "Zen 4",
			sockets: 1, cores: 1, threads: 1,
			virt: "KVM+container", cloud: "gcp",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := writeTree(t, c.files)
			p := fingerprintAt(root)
			p.Virtualization, p.Cloud, p.InstanceType = virtualization(root, c.cpuid)
			if p.CPUModel != c.model || p.CPUVendor != c.vendor || p.Microarch != c.uarch {
				t.Errorf("cpu = %q/%q/%q, want %q/%q/%q", p.CPUModel, p.CPUVendor, p.Microarch, c.model, c.vendor, c.uarch)
			}
			if p.Sockets != c.sockets || p.Cores != c.cores || p.Threads != c.threads {
				t.Errorf("topology = %d/%d/%d, want %d/%d/%d", p.Sockets, p.Cores, p.Threads, c.sockets, c.cores, c.threads)
			}
			if p.Virtualization != c.virt || p.Cloud != c.cloud || p.InstanceType != c.instance {
				t.Errorf("virt = %q/%q/%q, want %q/%q/%q", p.Virtualization, p.Cloud, p.InstanceType, c.virt, c.cloud, c.instance)
			}
		})
	}
}

// A cgroup memory limit is the lowest of the process's cgroup and those
// above it: v1's memory.limit_in_bytes (its near-2^63 "unlimited" is none),
// v2's memory.max ("max" is none), a hybrid host's v2 tree under unified/;
// below the RAM it is the platform's MemLimitBytes and its UsableRAM.
func TestCgroupMemLimit(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"v1 nested, the parent lower", map[string]string{
			"proc/self/cgroup":                                    "4:memory:/k8s/pod1\n0::/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":          "9223372036854771712\n",
			"sys/fs/cgroup/memory/k8s/memory.limit_in_bytes":      "2147483648\n",
			"sys/fs/cgroup/memory/k8s/pod1/memory.limit_in_bytes": "9223372036854771712\n"}, 2 << 30},
		{"v1 unlimited", map[string]string{
			"proc/self/cgroup": "4:memory:/process_api/x\n",
			"sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "9223372036854771712\n"}, 0},
		{"v2", map[string]string{
			"proc/self/cgroup":                                 "0::/system.slice/pb.service\n",
			"sys/fs/cgroup/cgroup.controllers":                 "cpu memory\n",
			"sys/fs/cgroup/system.slice/memory.max":            "max\n",
			"sys/fs/cgroup/system.slice/pb.service/memory.max": "536870912\n"}, 512 << 20},
		{"v2 hybrid", map[string]string{
			"proc/self/cgroup":                    "0::/pb\n",
			"sys/fs/cgroup/unified/pb/memory.max": "134217728\n"}, 128 << 20},
		{"no cgroup file", map[string]string{"proc/meminfo": "MemTotal: 1024 kB\n"}, 0},
	}
	for _, c := range cases {
		root := t.TempDir()
		for path, body := range c.files {
			p := filepath.Join(root, path)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(body), 0o644)
		}
		if got := cgroupMemLimit(root); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	p := result.Platform{RAMBytes: 8 << 30, MemLimitBytes: 2 << 30}
	if p.UsableRAM() != 2<<30 {
		t.Errorf("usable %d, want the limit", p.UsableRAM())
	}
	if p := (result.Platform{RAMBytes: 8 << 30}); p.UsableRAM() != 8<<30 {
		t.Errorf("usable %d without a limit, want the RAM", p.UsableRAM())
	}
}
