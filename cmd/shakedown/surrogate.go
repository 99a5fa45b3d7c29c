package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/shakedown-robotics/shakedown/gen/harness"
	"github.com/shakedown-robotics/shakedown/gen/surrogate"
	"github.com/shakedown-robotics/shakedown/scenario"
)

type surrogateFlags struct {
	out     string
	seed    uint64
	epochs  int
	mission string
	json    bool
}

func newSurrogateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "surrogate",
		Short: "Train and evaluate the clearance surrogate (a small neural network)",
		Long: `The surrogate of the surrogate-assisted testing paper (§IV-C, Fig. 2) predicts
the minimum clearance of a two-obstacle test from its ten features in the
canonical flight frame. "train" fits it to a dataset CSV (as written by
shakedown dataset) and writes the model as JSON; "eval" prints its errors on
a dataset.`,
	}
	var f surrogateFlags
	train := &cobra.Command{
		Use:   "train <data.csv> --out model.json",
		Short: "Train the surrogate on a dataset CSV",
		Long: `Train the surrogate exactly as the paper does: log-transform of the widths and
of obstacle 1's x, standardisation with the training split's statistics, Adam
on the mean absolute error, batches of 128, 200 epochs, 80/20 split, seeded
initialisation. Prints the training and validation errors and writes the model
(weights and normalisation statistics) as JSON.

--mission maps the dataset's obstacles (competition frame) into that mission's
canonical frame first; without it the features are used as they are (a
dataset of the canonical mission is already canonical). The dataset's first
line names its frame ("# frame: mission2"); a mission's dataset used
without its --mission, or with another, gets a warning on stderr.`,
		Example: `  shakedown dataset canonical --n 2716 --seed 1 --out canonical.csv
  shakedown surrogate train canonical.csv --out model.json`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return surrogateTrain(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], f)
		},
	}
	tf := train.Flags()
	tf.StringVar(&f.out, "out", "", "model `file` to write (required)")
	tf.Uint64Var(&f.seed, "seed", 1, "seed of the split, the initialisation and the batches")
	tf.IntVar(&f.epochs, "epochs", 200, "training epochs")
	tf.StringVar(&f.mission, "mission", "", "canonicalise the features through this case study's frame")
	tf.BoolVar(&f.json, "json", false, "print the training report as JSON")
	var ef surrogateFlags
	eval := &cobra.Command{
		Use:   "eval <model.json> <data.csv>",
		Short: "Print a model's RMSE and MAE on a dataset CSV",
		Example: `  shakedown surrogate eval model.json canonical.csv
  shakedown surrogate eval model.json m2.csv --mission mission2`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return surrogateEval(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], args[1], ef)
		},
	}
	eval.Flags().StringVar(&ef.mission, "mission", "", "canonicalise the features through this case study's frame")
	eval.Flags().BoolVar(&ef.json, "json", false, "print the errors as JSON")
	cmd.AddCommand(train, eval)
	return cmd
}

// readDataset reads a dataset CSV, canonicalised through mission's frame
// when mission is not empty, and warns on stderr when its frame line says
// the features would not end up in the canonical frame that way.
func readDataset(stderr io.Writer, path, mission string) (surrogate.Dataset, error) {
	fh, err := os.Open(path)
	if err != nil {
		return surrogate.Dataset{}, err
	}
	defer fh.Close()
	d, err := surrogate.ParseCSV(path, fh)
	if err != nil {
		return surrogate.Dataset{}, err
	}
	var cs *scenario.CaseStudy
	if mission != "" {
		if cs, err = scenario.Load(mission); err != nil {
			return surrogate.Dataset{}, err
		}
	}
	if w := harness.FrameWarning(path, d, cs); w != "" {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if cs == nil {
		return d, nil
	}
	return harness.ToCanonical(d, cs)
}

// readModel reads a model file; what names it in errors: "--model", or
// "" for an argument (the error names the file).
func readModel(what, path string) (*surrogate.Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if what == "" {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return surrogate.Decode(path, data)
}

func surrogateTrain(stdout, stderr io.Writer, path string, f surrogateFlags) error {
	if f.out == "" {
		return fmt.Errorf("--out: a model file to write is required")
	}
	if err := checkOutFile("out", f.out); err != nil {
		return err
	}
	if f.epochs < 1 || f.epochs > 100000 {
		return fmt.Errorf("--epochs %d: want 1 to 100000", f.epochs)
	}
	d, err := readDataset(stderr, path, f.mission)
	if err != nil {
		return err
	}
	m, err := surrogate.Train(d, surrogate.Config{Seed: f.seed, Epochs: f.epochs})
	if err != nil {
		return err
	}
	data, err := m.Encode()
	if err != nil {
		return err
	}
	if err := writeAtomic(f.out, data); err != nil {
		return err
	}
	if f.json {
		return writeJSON(stdout, m.Info)
	}
	i := m.Info
	fmt.Fprintf(stdout, "trained on %d samples, validated on %d (%d epochs, batch %d, seed %d)\n", i.TrainN, i.ValN, i.Epochs, i.BatchSize, i.Seed)
	fmt.Fprintf(stdout, "  training MAE     %.3f m\n  validation MAE   %.3f m\n  validation RMSE  %.3f m\nwrote %s\n", i.TrainMAE, i.ValMAE, i.ValRMSE, f.out)
	return nil
}

type evalResult struct {
	Samples int     `json:"samples"`
	RMSE    float64 `json:"rmse_m"`
	MAE     float64 `json:"mae_m"`
}

func surrogateEval(stdout, stderr io.Writer, modelPath, dataPath string, f surrogateFlags) error {
	m, err := readModel("", modelPath)
	if err != nil {
		return err
	}
	d, err := readDataset(stderr, dataPath, f.mission)
	if err != nil {
		return err
	}
	mae, rmse := m.Errors(d)
	r := evalResult{Samples: d.Len(), RMSE: rmse, MAE: mae}
	if f.json {
		return writeJSON(stdout, r)
	}
	fmt.Fprintf(stdout, "%s on %s (%d samples): RMSE %.3f m, MAE %.3f m\n", modelPath, dataPath, r.Samples, r.RMSE, r.MAE)
	return nil
}
