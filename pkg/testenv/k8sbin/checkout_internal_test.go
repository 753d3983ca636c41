package k8sbin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckoutIsTheSourceTreeThisBinaryWasBuiltFrom(t *testing.T) {
	root, err := Checkout()
	if err != nil {
		t.Fatalf("Checkout() in a test binary built from the checkout: %v", err)
	}
	wd, err := os.Getwd() // go test runs in pkg/testenv/k8sbin
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Dir(filepath.Dir(filepath.Dir(wd))); root != want {
		t.Fatalf("Checkout() = %s, want %s", root, want)
	}
}

func TestCheckoutStampMustBeAWavekitCheckout(t *testing.T) {
	defer func(old string) { checkoutStamp = old }(checkoutStamp)
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for stamp, want := range map[string]string{
		other:                        `declares module "example.com/other", not github.com/wavekit-dev/wavekit`,
		filepath.Join(other, "gone"): "no such file or directory",
	} {
		checkoutStamp = stamp
		_, err := Checkout()
		if !errors.Is(err, ErrNoCheckout) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "stamped at link time") {
			t.Errorf("Checkout() with stamp %s = %v, want ErrNoCheckout saying %q", stamp, err, want)
		}
	}
	wd, _ := os.Getwd()
	checkoutStamp = filepath.Dir(filepath.Dir(filepath.Dir(wd)))
	if root, err := Checkout(); err != nil || root != checkoutStamp {
		t.Errorf("Checkout() with the stamp of this checkout = %s, %v", root, err)
	}
}
