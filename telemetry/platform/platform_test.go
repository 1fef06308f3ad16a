package platform

import (
	"os"
	"path/filepath"
	"testing"
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
