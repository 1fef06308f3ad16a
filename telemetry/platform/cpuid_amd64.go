package platform

import "encoding/binary"

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// cpuidHypervisor returns the hypervisor vendor signature from CPUID leaf
// 0x40000000 ("KVMKVMKVM", "Microsoft Hv", "VMwareVMware", "XenVMMXenVMM",
// "TCGTCGTCGTCG", ...) when CPUID leaf 1 sets the hypervisor bit (ECX bit 31);
// "" on bare metal.
func cpuidHypervisor() string {
	_, _, ecx, _ := cpuid(1, 0)
	if ecx&(1<<31) == 0 {
		return ""
	}
	_, b, c, d := cpuid(0x40000000, 0)
	var sig [12]byte
	binary.LittleEndian.PutUint32(sig[0:], b)
	binary.LittleEndian.PutUint32(sig[4:], c)
	binary.LittleEndian.PutUint32(sig[8:], d)
	n := 0
	for n < len(sig) && sig[n] != 0 {
		n++
	}
	return string(sig[:n])
}
