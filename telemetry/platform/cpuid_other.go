//go:build !amd64

package platform

// cpuidHypervisor is amd64-only; other architectures rely on sysfs and DMI.
func cpuidHypervisor() string { return "" }
