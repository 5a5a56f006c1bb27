package main

func init() {
	steps = append(steps, step{order: 20, name: "watch", run: func(d *demo) error {
		banner("watch: what the server sends, from the List's RV, as a streaming list, and from an old RV")
		for _, args := range [][]string{
			// The correct pattern: list, then watch from the List's RV.
			{"watch", "configmaps", "-n", d.ns, "--rv", "list", "--timeout", "3s"},
			// The state as a streaming list, with its end marker.
			{"watch", "cm", "-n", d.ns, "-l", "app=demo", "--send-initial-events", "--until", "BOOKMARK", "--timeout", "10s"},
			// b's creation RV is older than the restarted API server's watch
			// cache: the server answers 410 Expired, classified with the fix.
			{"watch", "cm", "-n", d.ns, "--rv", d.rvs["create b"], "--max-events", "10", "--timeout", "5s"},
		} {
			if err := d.runPlugin(args...); err != nil {
				return err
			}
		}
		return nil
	}})
}
