package platform

import (
	"os"
	"path/filepath"
	"strings"
)

// hypervisorSigs maps CPUID leaf 0x40000000 signatures to names.
var hypervisorSigs = map[string]string{
	"KVMKVMKVM":    "KVM",
	"Linux KVM Hv": "KVM", // KVM with Hyper-V enlightenments
	"Microsoft Hv": "Hyper-V",
	"VMwareVMware": "VMware",
	"XenVMMXenVMM": "Xen",
	"TCGTCGTCGTCG": "QEMU (TCG)",
	"bhyve bhyve ": "bhyve",
	" lrpepyh  vr": "Parallels",
	"VBoxVBoxVBox": "VirtualBox",
	"ACRNACRNACRN": "ACRN",
	"QNXQVMBSQG":   "QNX",
	"EVMMEVMMEVMM": "Intel EVMM",
}

// virtualization names the hypervisor ("none" on bare metal), the cloud and
// the instance type when DMI tells. A container is appended as
// "+container" (e.g. "KVM+container"), since the load generator then shares
// a kernel with its neighbours.
func virtualization(root, cpuidSig string) (virt, cloud, instance string) {
	dmi := func(f string) string { return readTrim(filepath.Join(root, "sys/class/dmi/id", f)) }
	vendor, product := dmi("sys_vendor"), dmi("product_name")
	board, chassisTag, boardTag := dmi("board_vendor"), dmi("chassis_asset_tag"), dmi("board_asset_tag")
	biosVendor := dmi("bios_vendor")
	hypType := readTrim(filepath.Join(root, "sys/hypervisor/type"))
	hypUUID := strings.ToLower(readTrim(filepath.Join(root, "sys/hypervisor/uuid")))

	virt = hypervisorSigs[cpuidSig]
	if virt == "" && cpuidSig != "" {
		virt = strings.TrimSpace(cpuidSig)
	}
	if virt == "" && hypType != "" {
		virt = map[string]string{"xen": "Xen"}[hypType]
		if virt == "" {
			virt = hypType
		}
	}
	if virt == "" {
		// DMI product names of common hypervisors (for arm64 and others
		// without CPUID).
		switch {
		case strings.Contains(product, "KVM"), strings.HasPrefix(vendor, "QEMU"), strings.Contains(biosVendor, "SeaBIOS"):
			virt = "KVM"
		case strings.Contains(product, "VMware"), strings.Contains(vendor, "VMware"):
			virt = "VMware"
		case vendor == "Microsoft Corporation" && product == "Virtual Machine":
			virt = "Hyper-V"
		case strings.Contains(product, "VirtualBox"):
			virt = "VirtualBox"
		case strings.Contains(product, "HVM domU"), vendor == "Xen":
			virt = "Xen"
		case vendor == "Google":
			virt = "KVM"
		}
	}

	switch {
	case vendor == "Amazon EC2" || board == "Amazon EC2":
		cloud = "aws"
		if product != "" && product != "Not Specified" {
			instance = product // i3.metal, m5.large, ...
		}
		if virt == "KVM" || (virt == "" && !strings.HasSuffix(instance, ".metal")) {
			virt = "Amazon EC2 Nitro"
		}
	case strings.HasPrefix(hypUUID, "ec2") || strings.HasPrefix(strings.ToLower(dmi("product_uuid")), "ec2") ||
		strings.Contains(strings.ToLower(dmi("bios_version")), "amazon") || strings.Contains(strings.ToLower(dmi("product_version")), "amazon"):
		cloud = "aws" // Xen-era EC2: no instance type in DMI
	case product == "Google Compute Engine" || vendor == "Google":
		cloud = "gcp"
	case chassisTag == "7783-7084-3265-9085-8269-3286-77":
		cloud = "azure"
	case chassisTag == "OracleCloud.com":
		cloud = "oci"
	case strings.HasPrefix(vendor, "Alibaba Cloud"):
		cloud = "alibaba"
	case vendor == "DigitalOcean":
		cloud = "digitalocean"
	case vendor == "Hetzner":
		cloud = "hetzner"
		if product != "" {
			instance = product
		}
	case vendor == "Scaleway":
		cloud = "scaleway"
		instance = product
	case vendor == "OpenStack Foundation" || product == "OpenStack Nova":
		cloud = "openstack"
	}
	_ = boardTag // board_asset_tag holds the EC2 instance id (i-...), not a type

	if virt == "" {
		virt = "none"
	}
	if c := container(root); c != "" {
		virt += "+container"
	}
	return virt, cloud, instance
}

// container reports the container runtime when this process runs in one.
func container(root string) string {
	if _, err := os.Stat(filepath.Join(root, ".dockerenv")); err == nil {
		return "docker"
	}
	if _, err := os.Stat(filepath.Join(root, "run/.containerenv")); err == nil {
		return "podman"
	}
	if c := readTrim(filepath.Join(root, "run/systemd/container")); c != "" {
		return c
	}
	b, _ := os.ReadFile(filepath.Join(root, "proc/1/cgroup"))
	s := string(b)
	for _, k := range []string{"docker", "kubepods", "containerd", "lxc", "libpod"} {
		if strings.Contains(s, k) {
			return k
		}
	}
	return ""
}
