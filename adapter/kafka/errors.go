package kafka

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
)

// classify maps franz-go and broker errors onto target error classes.
func classify(err error) error { return adapter.WithClass(err, classOf) }

func classOf(err error) vocab.Class {
	var ke *kerr.Error
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, kgo.ErrRecordTimeout),
		errors.Is(err, kerr.RequestTimedOut):
		return vocab.ClassTimeout
	case errors.Is(err, context.Canceled):
		return vocab.ClassOther
	case errors.Is(err, kerr.ThrottlingQuotaExceeded), errors.Is(err, kgo.ErrMaxBuffered):
		return vocab.ClassOverloaded
	case errors.Is(err, kerr.TopicAuthorizationFailed), errors.Is(err, kerr.ClusterAuthorizationFailed),
		errors.Is(err, kerr.GroupAuthorizationFailed), errors.Is(err, kerr.SaslAuthenticationFailed),
		errors.Is(err, kerr.MessageTooLarge), errors.Is(err, kerr.RecordListTooLarge),
		errors.Is(err, kerr.InvalidRecord), errors.Is(err, kerr.UnknownTopicOrPartition),
		errors.Is(err, kerr.PolicyViolation), errors.Is(err, kerr.InvalidSessionTimeout):
		return vocab.ClassRejected
	case errors.Is(err, kgo.ErrRecordRetries), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, kgo.ErrClientClosed):
		return vocab.ClassUnavailable
	case errors.As(err, &ke) && ke.Retriable:
		return vocab.ClassUnavailable
	case errors.As(err, &ne) && ne.Timeout():
		return vocab.ClassTimeout
	case errors.As(err, &ne):
		return vocab.ClassUnavailable
	}
	return vocab.ClassOther
}
