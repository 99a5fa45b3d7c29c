package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/geom"
	"github.com/shakedown-robotics/shakedown/scenario"
)

type missionInfo struct {
	Name    string     `json:"name"`
	Items   []itemInfo `json:"items"`
	LengthM float64    `json:"path_length_m"`
}

type itemInfo struct {
	Kind string  `json:"kind"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	Z    float64 `json:"z"`
}

func newMissionsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "missions",
		Short: "List the built-in competition missions",
		Long: `List the seven UAV Testing Competition missions built into Shakedown, and the
paper's canonical mission (one straight leg), with their
items in the competition frame (x North, y East, z Up, metres about the
take-off point) and the length of the planned path.`,
		Example: "  shakedown missions\n  shakedown missions --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var all []missionInfo
			for _, name := range scenario.BuiltinNames() {
				cs, err := scenario.Builtin(name)
				if err != nil {
					return err
				}
				mi := missionInfo{Name: name}
				path := cs.Mission.Path()
				xy := make([]geom.Vec2, len(path))
				for i, p := range path {
					xy[i] = p.XY()
				}
				mi.LengthM = geom.PolylineLength(xy)
				for _, it := range cs.Mission.Items {
					mi.Items = append(mi.Items, itemInfo{Kind: it.Kind.String(), X: it.Pos.X, Y: it.Pos.Y, Z: 0 - it.Pos.Z})
				}
				all = append(all, mi)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				b, err := json.MarshalIndent(all, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s\n", b)
				return nil
			}
			for _, m := range all {
				fmt.Fprintf(w, "%s  (%.1f m)\n", m.Name, m.LengthM)
				for _, it := range m.Items {
					fmt.Fprintf(w, "  %-8s x=%7.2f y=%7.2f z=%5.1f\n", it.Kind, it.X, it.Y, it.Z)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
