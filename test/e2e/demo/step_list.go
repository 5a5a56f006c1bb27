package main

func init() {
	steps = append(steps, step{order: 10, name: "list", run: func(d *demo) error {
		banner("list: the List resourceVersion that kubectl get -o json hides")
		for _, args := range [][]string{
			{"list", "configmaps", "-n", d.ns},
			{"list", "cm", "-n", d.ns, "--limit", "100", "-o", "wide"},
			{"list", "cm", "-n", d.ns, "--rv-only"},
			{"list", "cm", "-n", d.ns, "--rv", d.rvs["create b"], "--rv-match", "Exact", "--limit", "100"},
		} {
			if err := d.runPlugin(args...); err != nil {
				return err
			}
		}
		return nil
	}})
}
