package cache_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/qeval/qeval/internal/cache"
)

// privateRedis is a redis-server of the test's own: a password on the default user, a
// user qeval limited to the keys qeval writes (the README's recipe), a plain port and
// a TLS port whose certificate a CA of the test signed.
type privateRedis struct {
	port, tlsPort int
	ca            string // the CA's certificate file
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func startPrivateRedis(t *testing.T) privateRedis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("no redis-server on PATH: install Redis to run this test")
	}
	dir := t.TempDir()
	ca := writeCerts(t, dir)
	r := privateRedis{port: freePort(t), tlsPort: freePort(t), ca: ca}
	conf := fmt.Sprintf(`port %d
bind 127.0.0.1
tls-port %d
tls-cert-file %s
tls-key-file %s
tls-ca-cert-file %s
tls-auth-clients no
requirepass admin-password
user qeval on >qeval-password ~qeval:* resetchannels -@all +@read +@write +@keyspace +@connection -@dangerous
save ""
appendonly no
dir %s
`, r.port, r.tlsPort, filepath.Join(dir, "server.pem"), filepath.Join(dir, "server.key"), ca, dir)
	if err := os.WriteFile(filepath.Join(dir, "redis.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, filepath.Join(dir, "redis.conf"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// an external process: polled, with a generous deadline
	deadline := time.Now().Add(30 * time.Second)
	for _, p := range []int{r.port, r.tlsPort} {
		for {
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("redis-server does not listen on %d: %s", p, out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return r
}

// writeCerts writes a CA and a certificate for 127.0.0.1 it signed into dir; it returns
// the CA's file.
func writeCerts(t *testing.T, dir string) string {
	t.Helper()
	write := func(name, typ string, der []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "qeval test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	write("ca.pem", "CERTIFICATE", caDER)
	write("server.pem", "CERTIFICATE", der)
	write("server.key", "EC PRIVATE KEY", keyDER)
	return filepath.Join(dir, "ca.pem")
}

// useRedis puts, gets and deletes one entry through a cache opened on url.
func useRedis(ctx context.Context, url string) error {
	r, err := cache.OpenRedis(ctx, url, cache.Options{TTL: time.Minute})
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.Put(ctx, "gold-result@1:x", []byte("v")); err != nil {
		return err
	}
	if v, ok, err := r.Get(ctx, "gold-result@1:x"); err != nil || !ok || string(v) != "v" {
		return fmt.Errorf("get: %q %v %v", v, ok, err)
	}
	if n, err := r.DeletePrefix(ctx, "gold-result@"); err != nil || n != 1 {
		return fmt.Errorf("delete: %d %v", n, err)
	}
	return nil
}

// Redis AUTH (redis://user:password@…) and TLS (rediss://) work, a wrong password or an
// untrusted certificate is refused, and no message shows the password.
func TestRedis_AuthAndTLS(t *testing.T) {
	ctx := context.Background()
	r := startPrivateRedis(t)
	plain := fmt.Sprintf("127.0.0.1:%d/0", r.port)
	for _, c := range []struct{ url, wantErr string }{
		{"redis://" + plain, "NOAUTH"},
		{"redis://qeval:wrong-password@" + plain, "WRONGPASS"},
		{"redis://qeval:qeval-password@" + plain, ""},
		{"redis://:admin-password@" + plain, ""},
		{fmt.Sprintf("rediss://qeval:qeval-password@127.0.0.1:%d/0", r.tlsPort), "certificate"},
	} {
		err := useRedis(ctx, c.url)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.url, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: %v, want an error saying %s", c.url, err, c.wantErr)
		case err != nil && showsPassword(err.Error()):
			t.Errorf("%s: the message shows the password: %v", c.url, err)
		}
	}
	// TLS with the CA added to the system's as the README says (SSL_CERT_DIR, a folder
	// holding it), in a process of its own: the system's roots are read once per process
	caDir := t.TempDir()
	if b, err := os.ReadFile(r.ca); err != nil || os.WriteFile(filepath.Join(caDir, "ca.crt"), b, 0o600) != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRedis_TLSHelper$")
	cmd.Env = append(os.Environ(), "SSL_CERT_DIR="+caDir,
		fmt.Sprintf("QEVAL_TEST_REDIS_URL=rediss://qeval:qeval-password@127.0.0.1:%d/0", r.tlsPort))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "tls ok") {
		t.Errorf("rediss:// with the CA in SSL_CERT_DIR: %v\n%s", err, out)
	}
}

func showsPassword(msg string) bool {
	for _, p := range []string{"wrong-password", "qeval-password", "admin-password"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func TestRedis_TLSHelper(t *testing.T) {
	url := os.Getenv("QEVAL_TEST_REDIS_URL")
	if url == "" {
		return // a helper process of TestRedis_AuthAndTLS only
	}
	if err := useRedis(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	fmt.Println("tls ok")
}
