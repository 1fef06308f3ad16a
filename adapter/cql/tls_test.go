package cql

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// TestTLS: the test nodes take TLS on their native port (optional TLS,
// scripts/servers/cassandra.sh). With tls_ca the target picks the gocql
// driver, verifies the node's certificate and runs requests over TLS (the
// node's own system_views.clients says so); a CA that did not sign the
// node's certificate is one line with the fix.
func TestTLS(t *testing.T) {
	ca := testenv.URL(t, "PLATBENCH_CQL_TLS_CA")
	ctx := context.Background()
	countTLS := func(tg *Target) int {
		iter := tg.session.Query("SELECT ssl_enabled FROM system_views.clients").Iter()
		n := 0
		var on bool
		for iter.Scan(&on) {
			if on {
				n++
			}
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("system_views.clients: %v", err)
		}
		return n
	}

	tg := openTest(t, map[string]string{"tls_ca": ca})
	defer tg.Close()
	if tg.cfg.Driver != DriverGocql || !tg.cfg.TLS {
		t.Fatalf("tls_ca gave driver %q, tls %v; want gocql over TLS", tg.cfg.Driver, tg.cfg.TLS)
	}
	if err := tg.Setup(ctx, &workload.Spec{FieldCount: 2, FieldLength: 10}); err != nil {
		t.Fatalf("Setup over TLS: %v", err)
	}
	wk, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	req := &workload.Request{Op: vocab.OpInsert, Key: key(1), Value: []byte("01234567890123456789"), Fields: 2, FieldLen: 10}
	if err := wk.Do(ctx, req); err != nil {
		t.Fatalf("insert over TLS: %v", err)
	}
	req.Op = vocab.OpRead
	if err := wk.Do(ctx, req); err != nil {
		t.Fatalf("read over TLS: %v", err)
	}
	if n := countTLS(tg); n == 0 {
		t.Errorf("the node counts no TLS client connection while the TLS session is open")
	}
	if got := tg.Describe(ctx).Details["tls"]; got != "true" {
		t.Errorf("Describe tls = %q, want true", got)
	}

	// A CA of our own, which did not sign the node's certificate.
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "not-the-node-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	wrong := filepath.Join(t.TempDir(), "wrong-ca.pem")
	if err := os.WriteFile(wrong, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	octx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err = Open(octx, serverURL(t), map[string]string{"tls_ca": wrong, "connect_timeout": "5s"})
	var ce *adapter.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "TLS handshake") || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("wrong CA: %v; want a ConfigError 'TLS handshake ... (fix: ...)'", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
}
