package main

import (
	"fmt"
	"os"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	steps = append(steps, step{order: 40, name: "explain-error", run: func(d *demo) error {
		banner("explain-error: the errors this server really gave, sorted and explained")
		cs, err := d.cluster.Clientset(0)
		if err != nil {
			return err
		}
		// A watch from b's creation RV: the restarted API server's watch cache
		// no longer has it, and answers with an ERROR event (410 Expired).
		w, err := cs.CoreV1().ConfigMaps(d.ns).Watch(d.ctx, metav1.ListOptions{ResourceVersion: d.rvs["create b"]})
		if err != nil {
			return err
		}
		ev := <-w.ResultChan()
		w.Stop()
		st, ok := ev.Object.(*metav1.Status)
		if !ok {
			return fmt.Errorf("expected an ERROR event from RV %s, got %s", d.rvs["create b"], ev.Type)
		}
		expired := st.Message
		// A list from a future RV: the server waits ~3 s, then 504 TooLarge.
		_, tooLarge := cs.CoreV1().ConfigMaps(d.ns).List(d.ctx, metav1.ListOptions{ResourceVersion: "99999999", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
		if tooLarge == nil {
			return fmt.Errorf("a list from RV 99999999 should have failed")
		}
		// A controller's log with both, as client-go's reflector writes them.
		log := filepath.Join(d.cluster.Dir, "controller.log")
		lines := fmt.Sprintf(`I1129 10:00:00.000000       1 reflector.go:376] Listing and watching *v1.ConfigMap from pkg/mod/k8s.io/client-go@v0.37.2/tools/cache/reflector.go:251
W1129 10:05:00.000000       1 reflector.go:492] pkg/mod/k8s.io/client-go@v0.37.2/tools/cache/reflector.go:251: watch of *v1.ConfigMap ended with: %s
W1129 10:05:00.100000       1 reflector.go:561] pkg/mod/k8s.io/client-go@v0.37.2/tools/cache/reflector.go:251: failed to list *v1.ConfigMap: %v
W1129 10:06:00.000000       1 reflector.go:492] pkg/mod/k8s.io/client-go@v0.37.2/tools/cache/reflector.go:251: watch of *v1.ConfigMap ended with: %s
`, expired, tooLarge, expired)
		if err := os.WriteFile(log, []byte(lines), 0o644); err != nil {
			return err
		}
		for _, args := range [][]string{
			{"explain-error", expired, "--check", "-n", d.ns},
			{"explain-error", tooLarge.Error()},
			{"explain-error", "-f", log},
		} {
			if err := d.runPlugin(args...); err != nil {
				return err
			}
		}
		return nil
	}})
}
