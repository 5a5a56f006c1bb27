package main

import (
	"fmt"

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
		// The real informer's log: its rewatch after the restart met 410.
		log := d.informer.LogPath
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
