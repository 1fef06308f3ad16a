package null

import (
	"net/url"

	"github.com/platbench/platbench/adapter"
)

// Config is the null target's settings: it has none.
type Config struct{}

// options declares the options to the option layer: none, so that any
// option given is refused by name.
func (c *Config) options() *adapter.OptionSet { return adapter.NewOptionSet("null") }

// Options declares the null target's options: none.
func Options() *adapter.OptionSet { return new(Config).options() }

// ParseConfig reads u and opts (--target-opt): an option is refused, since
// the null target takes none.
func ParseConfig(u *url.URL, opts map[string]string) (*Config, error) {
	c := &Config{}
	s := c.options()
	s.ParseURL(u, opts)
	if err := s.Err(); err != nil {
		return nil, err
	}
	return c, nil
}
