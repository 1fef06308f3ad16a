package redis

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/vocab"
)

// tlsFront terminates TLS with a self-signed certificate and forwards the
// bytes to the real server at backend (Debian's redis-server can do TLS
// itself, but would need certificates on disk and its own port).
func tlsFront(t *testing.T, backend string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "platbench-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b, err := net.Dial("tcp", backend)
				if err != nil {
					return
				}
				defer b.Close()
				go io.Copy(b, c)
				io.Copy(c, b)
			}()
		}
	}()
	return l.Addr().String()
}

func TestTLS(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	u, _ := url.Parse(raw)
	front := tlsFront(t, u.Host)

	tg := open(t, "rediss://"+front+"?tls_insecure=true", nil)
	if err := tg.Setup(context.Background(), spec(1, 10, vocab.OpRead)); err != nil {
		t.Fatal(err)
	}
	if info := tg.Describe(context.Background()); !strings.HasPrefix(info.URL, "rediss://") || info.Version == "" {
		t.Errorf("Describe over TLS: %+v", info)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Do(context.Background(), req(vocab.OpSet, "tls-"+uniq, []byte("over tls"), 1, 8)); err != nil {
		t.Fatal(err)
	}
	if err := w.Do(context.Background(), req(vocab.OpGet, "tls-"+uniq, nil, 1, 8)); err != nil {
		t.Fatal(err)
	}
	if v := verifier(t, raw).Get(context.Background(), "tls-"+uniq).Val(); v != "over tls" {
		t.Fatalf("the server holds %q", v)
	}

	// Without tls_insecure the self-signed certificate is refused, at Open.
	uu, _ := url.Parse("rediss://" + front)
	if _, err := Open(context.Background(), uu, nil); err == nil || !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("Open with an untrusted certificate: %v, want a certificate error", err)
	}
}
