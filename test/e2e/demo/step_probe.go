package main

func init() {
	steps = append(steps, step{order: 30, name: "probe", run: func(d *demo) error {
		banner("probe: how far back a watch can start (the history restarted the API server after a burst, so its watch cache starts at its initial list)")
		for _, args := range [][]string{
			{"probe", "configmaps", "-n", d.ns, "-v", "--verify"},
			{"probe", "configmaps", "-n", d.ns, "--future"},
		} {
			if err := d.runPlugin(args...); err != nil {
				return err
			}
		}
		return nil
	}})
}
