package kafka

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

func kgoTimeout() error { return fmt.Errorf("produce: %w", kgo.ErrRecordTimeout) }

func wrap(err error) error { return fmt.Errorf("broker: %w", err) }
