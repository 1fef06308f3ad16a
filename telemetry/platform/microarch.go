package platform

// The tables below name the server and common desktop parts a benchmark is
// likely to meet; an unknown part yields "" rather than a guess.

// intelMicroarch maps Intel family 6 models (and the stepping where Intel
// reused a model number) to the microarchitecture.
func intelMicroarch(family, model, stepping int) string {
	if family != 6 {
		return ""
	}
	switch model {
	case 0x55:
		switch {
		case stepping >= 10:
			return "Cooper Lake"
		case stepping >= 5:
			return "Cascade Lake"
		default:
			return "Skylake"
		}
	}
	return intelModels[model]
}

var intelModels = map[int]string{
	0x1a: "Nehalem", 0x1e: "Nehalem", 0x2e: "Nehalem",
	0x25: "Westmere", 0x2c: "Westmere", 0x2f: "Westmere",
	0x2a: "Sandy Bridge", 0x2d: "Sandy Bridge",
	0x3a: "Ivy Bridge", 0x3e: "Ivy Bridge",
	0x3c: "Haswell", 0x3f: "Haswell", 0x45: "Haswell", 0x46: "Haswell",
	0x3d: "Broadwell", 0x47: "Broadwell", 0x4f: "Broadwell", 0x56: "Broadwell",
	0x4e: "Skylake", 0x5e: "Skylake",
	0x8e: "Kaby Lake", 0x9e: "Coffee Lake",
	0xa5: "Comet Lake", 0xa6: "Comet Lake",
	0x66: "Cannon Lake",
	0x6a: "Ice Lake", 0x6c: "Ice Lake", 0x7d: "Ice Lake", 0x7e: "Ice Lake",
	0x8c: "Tiger Lake", 0x8d: "Tiger Lake",
	0xa7: "Rocket Lake",
	0x97: "Alder Lake", 0x9a: "Alder Lake", 0xbe: "Alder Lake",
	0xb7: "Raptor Lake", 0xba: "Raptor Lake", 0xbf: "Raptor Lake",
	0xaa: "Meteor Lake", 0xac: "Meteor Lake",
	0xc5: "Arrow Lake", 0xc6: "Arrow Lake", 0xbd: "Lunar Lake",
	0x8f: "Sapphire Rapids",
	0xcf: "Emerald Rapids",
	0xad: "Granite Rapids", 0xae: "Granite Rapids",
	0xaf: "Sierra Forest",
	0xdd: "Clearwater Forest",
	0x5c: "Goldmont", 0x5f: "Goldmont", 0x7a: "Goldmont Plus",
	0x86: "Tremont", 0x96: "Tremont", 0x9c: "Tremont",
	0x57: "Knights Landing", 0x85: "Knights Mill",
}

// amdMicroarch maps AMD families (and model ranges within a family) to the
// Zen generation; Hygon Dhyana (family 0x18) is a Zen derivative.
func amdMicroarch(family, model int) string {
	switch family {
	case 0x15:
		switch {
		case model < 0x10:
			return "Bulldozer/Piledriver"
		case model < 0x30:
			return "Piledriver"
		case model < 0x60:
			return "Steamroller"
		default:
			return "Excavator"
		}
	case 0x16:
		return "Jaguar"
	case 0x17:
		switch {
		case model == 0x08 || model == 0x18:
			return "Zen+"
		case model < 0x30:
			return "Zen" // Naples (0x01), Raven Ridge (0x11)
		default:
			return "Zen 2" // Rome (0x31), Renoir, Matisse, Van Gogh
		}
	case 0x18:
		return "Zen (Hygon Dhyana)"
	case 0x19:
		switch {
		case model < 0x10: // Milan (0x01)
			return "Zen 3"
		case model < 0x20: // Genoa (0x11), Storm Peak
			return "Zen 4"
		case model < 0x40: // Vermeer (0x21), Milan-X variants
			return "Zen 3"
		case model < 0x60: // Rembrandt (0x44) is Zen 3+, Cezanne (0x50)
			if model >= 0x40 && model < 0x50 {
				return "Zen 3+"
			}
			return "Zen 3"
		default: // Raphael (0x61), Phoenix (0x74), Bergamo/Siena (0xa0)
			return "Zen 4"
		}
	case 0x1a:
		return "Zen 5" // Turin, Granite Ridge, Strix
	}
	return ""
}

// armImplementers maps MIDR implementer codes to vendors.
var armImplementers = map[int]string{
	0x41: "ARM", 0x42: "Broadcom", 0x43: "Cavium", 0x46: "Fujitsu",
	0x48: "HiSilicon", 0x4e: "NVIDIA", 0x50: "APM", 0x51: "Qualcomm",
	0x61: "Apple", 0x6d: "Microsoft", 0xc0: "Ampere",
}

// armParts maps (implementer, part) to the core; the comment names cloud
// parts built on it (Graviton 1–4, Ampere Altra, Azure Cobalt, Google Axion).
var armParts = map[[2]int]string{
	{0x41, 0xd03}: "Cortex-A53",
	{0x41, 0xd07}: "Cortex-A57",
	{0x41, 0xd08}: "Cortex-A72", // AWS Graviton (a1)
	{0x41, 0xd0b}: "Cortex-A76",
	{0x41, 0xd0c}: "Neoverse N1", // AWS Graviton2, Ampere Altra
	{0x41, 0xd0d}: "Cortex-A77",
	{0x41, 0xd40}: "Neoverse V1", // AWS Graviton3
	{0x41, 0xd41}: "Cortex-A78",
	{0x41, 0xd44}: "Cortex-X1",
	{0x41, 0xd46}: "Cortex-A510",
	{0x41, 0xd47}: "Cortex-A710",
	{0x41, 0xd49}: "Neoverse N2", // Azure Cobalt 100, Alibaba Yitian
	{0x41, 0xd4f}: "Neoverse V2", // AWS Graviton4, Google Axion, NVIDIA Grace
	{0x41, 0xd8e}: "Neoverse N3",
	{0x41, 0xd84}: "Neoverse V3",
	{0x43, 0x0af}: "ThunderX2",
	{0x46, 0x001}: "A64FX",
	{0x48, 0xd01}: "TaiShan v110", // Kunpeng 920
	{0x50, 0x000}: "X-Gene",
	{0xc0, 0xac3}: "AmpereOne",
	{0xc0, 0xac4}: "AmpereOne",
}

func armPart(implementer, part int) string {
	return armParts[[2]int{implementer, part}]
}
