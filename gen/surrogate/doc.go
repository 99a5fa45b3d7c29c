// Package surrogate is the neural-network surrogate of the
// surrogate-assisted testing paper (§IV-C, Fig. 2): it predicts the minimum
// clearance between the vehicle and two box obstacles from their ten
// features in the canonical flight frame, in microseconds instead of a
// simulation.
//
// The network is the published one: two branches, one per obstacle, each
// taking that obstacle's five features (L, W, X, Y, R) through dense
// layers of 10 and 20 ReLU units; the two 20-wide outputs are concatenated
// and go through 20 ReLU units to one linear output, the predicted
// clearance in metres. Inputs are preprocessed as the paper does: the
// widths and obstacle 1's x are log-transformed, then every feature is
// standardised with the training set's mean and standard deviation. It is
// trained with Adam on the mean absolute error, in batches of 128 for 200
// epochs, on 80 % of the data with 20 % held out for validation, from a
// seeded Glorot-uniform initialisation (the Keras defaults the paper's
// setup implies).
//
// The package is pure: it reads no file and draws randomness only from
// seeds. Models are saved and loaded as JSON (weights and normalisation
// statistics); datasets are read from the CSV that `shakedown dataset`
// writes.
package surrogate
