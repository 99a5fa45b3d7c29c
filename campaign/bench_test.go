package campaign_test

import (
	"context"
	"testing"

	"github.com/shakedown-robotics/shakedown/campaign"
)

// BenchmarkLocal is the local executor's throughput: 40 constrained-random
// tests of the canonical mission, whole flights (up to 500 simulated
// seconds, gusts 0.3 m/s) on the embedded simulator, one per core.
func BenchmarkLocal(b *testing.B) {
	jobs := testJobs(b, 40, 0)
	ex := &campaign.Local{}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		err := ex.Execute(context.Background(), campaign.CampaignID(jobs), jobs, func(campaign.Delivery) error { n++; return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "jobs/s")
}
