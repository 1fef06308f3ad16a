package embedded

import (
	"net/url"

	"github.com/platbench/platbench/adapter"
)

// Config is the embedded target's configuration, from the URL and the
// target options.
type Config struct {
	// Dir is the data directory (the URL path). Default: a new temporary
	// directory, removed after the run unless Keep.
	Dir string
	// Sync fsyncs the WAL on every write (option sync). Default false.
	Sync bool
	// Cache is the block cache size in bytes (option cache). Default 64 MiB.
	Cache int64
	// Keep keeps a temporary data directory after the run (option keep). Default false.
	Keep bool
}

func (c *Config) options() *adapter.OptionSet {
	s := adapter.NewOptionSet("embedded")
	s.Bool(&c.Sync, "sync", "false", "fsync the WAL on every write; false lets the OS flush it")
	s.Size(&c.Cache, "cache", "64MiB", "pebble's block cache").Positive()
	s.Bool(&c.Keep, "keep", "false", "keep a temporary data directory after the run (a directory given in the URL is always kept)")
	return s
}

// Options declares the embedded target's options.
func Options() *adapter.OptionSet { return new(Config).options() }

// ParseConfig builds a Config from the URL and options, reporting every
// problem at once.
func ParseConfig(u *url.URL, opts map[string]string) (*Config, error) {
	c := &Config{Dir: u.Path}
	s := c.options()
	s.ParseURL(u, opts)
	return c, s.Err()
}
