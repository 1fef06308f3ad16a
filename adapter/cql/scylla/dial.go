package scylla

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// A node's shard-aware port serves each connection on shard
// source_port % nr_shards, so a client chooses the shard by binding its
// source port before it connects. DialShard does that, over the local
// ephemeral port range, skipping ports in use.

// PortRange is the range of local ports DialShard binds: the kernel's
// ephemeral range (net.ipv4.ip_local_port_range), so that the ports it
// takes are those the system would hand out anyway, or 49152-65535 (IANA's
// dynamic ports) when that file cannot be read.
func PortRange() (lo, hi int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		f := strings.Fields(string(b))
		if len(f) == 2 {
			l, err1 := strconv.Atoi(f[0])
			h, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && 0 < l && l <= h && h <= 65535 {
				return l, h
			}
		}
	}
	return 49152, 65535
}

// ErrNoSourcePort: every port of the range that maps to the shard was in
// use (or refused by the system).
var ErrNoSourcePort = errors.New("scylla: no free local port maps to the shard")

// next spreads the first port tried over the range, so that successive
// dials (of every worker and shard) do not all start on the same port.
var next atomic.Uint32

// DialShard connects d to addr (a node's shard-aware port) from a local
// port p with p % nrShards == shard, trying the ports of [lo, hi] that map
// to the shard, from a rotating start, until one binds: a port in use
// (EADDRINUSE, or EADDRNOTAVAIL when the four-tuple is taken) moves on to
// the next; any other failure is returned at once, as is ctx's end.
// d.LocalAddr's IP, if set, is kept; its port is replaced.
func DialShard(ctx context.Context, d net.Dialer, addr string, shard, nrShards, lo, hi int) (net.Conn, error) {
	if nrShards < 1 || shard < 0 || shard >= nrShards {
		return nil, fmt.Errorf("scylla: shard %d of %d", shard, nrShards)
	}
	var ip net.IP
	if la, ok := d.LocalAddr.(*net.TCPAddr); ok && la != nil {
		ip = la.IP
	}
	// Ports that map to shard: first, first+n, ... up to hi.
	first := lo + ((shard-lo%nrShards)%nrShards+nrShards)%nrShards
	count := 0
	if first <= hi {
		count = (hi-first)/nrShards + 1
	}
	start := int(next.Add(1)) % max(count, 1)
	for i := 0; i < count; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		port := first + ((start+i)%count)*nrShards
		d.LocalAddr = &net.TCPAddr{IP: ip, Port: port}
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return c, nil
		}
		if !portTaken(err) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w (shard %d of %d, ports %d-%d)", ErrNoSourcePort, shard, nrShards, lo, hi)
}

// portTaken: the bind or the connect failed because the source port (or
// the connection from it to addr) is in use.
func portTaken(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EADDRNOTAVAIL)
}

// ShardAwareAddr is the address of host's shard-aware port (host as in
// host:port, the node's CQL address).
func ShardAwareAddr(host string, port uint16) (string, error) {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(h, strconv.Itoa(int(port))), nil
}
