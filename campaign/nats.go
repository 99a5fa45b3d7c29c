package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NATSConfig names the JetStream streams and subjects a campaign uses and
// sets their delivery rules. The coordinator and the workers of a campaign
// must use the same Prefix; whoever starts first creates the streams
// (existing streams are left as they are), and each start sets the
// workers' consumer to its own AckWait and MaxDeliver. Zero values mean the
// defaults named.
//
// With Prefix p (default "shakedown") and campaign id c:
//
//	stream P_JOBS     subjects p.jobs.>     work queue; durable pull consumer "workers"
//	stream P_RESULTS  subjects p.results.>  limits (MaxAge)
//	p.jobs.c          the campaign's jobs (a Job's JSON)
//	p.results.c.ok    its results (a Result's JSON)
//	p.results.c.dead  its dead letters: jobs that kept failing, with the error
//
// where P is p in upper case. A work-queue stream allows one unfiltered
// consumer, so every worker of every campaign pulls from "workers".
type NATSConfig struct {
	Prefix string // a subject token of letters, digits, '-' and '_'; "" = "shakedown"
	// AckWait is how long a job may go without a sign of life from its
	// worker before it is delivered to another (workers signal progress
	// every AckWait/3 while a job runs); 0 = 1 min.
	AckWait time.Duration
	// MaxDeliver is how many times a job is delivered before it is given
	// up as dead; 0 = 5.
	MaxDeliver int
	// BackOff is how long a failed job waits before its next delivery:
	// BackOff[k-1] after the k-th failure, the last value after that;
	// nil = 1 s, 5 s, 30 s, 2 min.
	BackOff []time.Duration
	// FetchWait is how long an idle worker's pull request waits for a job
	// (and so how long a drain can take to notice); 0 = 2 s.
	FetchWait time.Duration
	// ResultsMaxAge is how long results stay in the results stream (they
	// are removed when their campaign completes); 0 = 7 days.
	ResultsMaxAge time.Duration
	// Replicas is the streams' replication factor on a cluster; 0 = 1.
	Replicas int
	// Key, when set, is the campaign's shared secret (see Key): the
	// coordinator signs its jobs and accepts only results signed with it,
	// and a worker runs only jobs signed with it. The coordinator and its
	// workers must hold the same key. Unset, anyone who can publish on
	// the server can plant results.
	Key Key
	// CheckEvery is how often a waiting coordinator checks that the
	// server still holds the campaign's streams (a server restarted with
	// an empty JetStream store has lost them); 0 = 5 s.
	CheckEvery time.Duration
}

func (c NATSConfig) withDefaults() (NATSConfig, error) {
	if c.Prefix == "" {
		c.Prefix = "shakedown"
	}
	for _, r := range c.Prefix {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return c, fmt.Errorf("campaign: NATS prefix %q: want letters, digits, '-' and '_'", c.Prefix)
		}
	}
	if c.AckWait == 0 {
		c.AckWait = time.Minute
	}
	if c.MaxDeliver == 0 {
		c.MaxDeliver = 5
	}
	if c.BackOff == nil {
		c.BackOff = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second, 2 * time.Minute}
	}
	if c.FetchWait == 0 {
		c.FetchWait = 2 * time.Second
	}
	if c.ResultsMaxAge == 0 {
		c.ResultsMaxAge = 7 * 24 * time.Hour
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.CheckEvery == 0 {
		c.CheckEvery = 5 * time.Second
	}
	if c.AckWait < 30*time.Millisecond || c.MaxDeliver < 1 || c.FetchWait < 10*time.Millisecond || c.Replicas < 1 || c.ResultsMaxAge < 0 || c.CheckEvery < 10*time.Millisecond {
		return c, fmt.Errorf("campaign: NATS config out of range: ack wait %v (≥ 30 ms), max deliver %d (≥ 1), fetch wait %v (≥ 10 ms), replicas %d (≥ 1), results max age %v (≥ 0), check every %v (≥ 10 ms)",
			c.AckWait, c.MaxDeliver, c.FetchWait, c.Replicas, c.ResultsMaxAge, c.CheckEvery)
	}
	for _, b := range c.BackOff {
		if b < 0 {
			return c, fmt.Errorf("campaign: NATS back-off %v < 0", b)
		}
	}
	return c, nil
}

func (c NATSConfig) jobsStream() string    { return strings.ToUpper(c.Prefix) + "_JOBS" }
func (c NATSConfig) resultsStream() string { return strings.ToUpper(c.Prefix) + "_RESULTS" }
func (c NATSConfig) jobsSubject(id ID) string {
	return c.Prefix + ".jobs." + string(id)
}
func (c NATSConfig) resultsSubject(id ID, kind string) string {
	return c.Prefix + ".results." + string(id) + "." + kind
}

// backOff is the delay before the delivery after the k-th failure (k ≥ 1).
func (c NATSConfig) backOff(k int) time.Duration {
	if len(c.BackOff) == 0 {
		return 0
	}
	return c.BackOff[min(k, len(c.BackOff))-1]
}

const (
	workersConsumer = "workers"
	hdrJob          = "Shakedown-Job"
	hdrWorker       = "Shakedown-Worker"
	hdrAttempt      = "Shakedown-Attempt"
	hdrElapsed      = "Shakedown-Elapsed-Ns"
	kindOK          = "ok"
	kindDead        = "dead"
)

// Dial connects to the NATS server at url (several URLs separated by
// commas) and checks that JetStream is enabled there. A user and password
// (nats://user:password@host:4222) or a token (nats://token@host) in the
// URL authenticate the connection; opts add others (nats.RootCAs for a
// server whose TLS certificate a private authority signed,
// nats.UserCredentials, nats.ClientCert). A server that cannot be reached
// is an error wrapping ErrUnreachable. Errors name the URL without its
// password (RedactURL). Once connected, the connection reconnects for as
// long as it takes.
func Dial(ctx context.Context, url, name string, opts ...nats.Option) (*nats.Conn, error) {
	all := append([]nats.Option{nats.Name(name), nats.Timeout(5 * time.Second),
		nats.MaxReconnects(-1), nats.ReconnectWait(time.Second)}, opts...)
	nc, err := nats.Connect(url, all...)
	url = RedactURL(url)
	if errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrAuthRevoked) {
		return nil, fmt.Errorf("campaign: NATS server at %s refused the credentials: %w", url, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, url, err)
	}
	js, err := jetstream.New(nc)
	if err == nil {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = js.AccountInfo(actx)
		cancel()
	}
	if err != nil {
		nc.Close()
		if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
			return nil, fmt.Errorf("campaign: JetStream is not enabled on the NATS server at %s (start it with nats-server -js): %w", url, err)
		}
		return nil, fmt.Errorf("%w at %s: JetStream does not answer: %v", ErrUnreachable, url, err)
	}
	return nc, nil
}

// ensure creates the two streams if they are missing (existing ones are
// used as they are, so that an operator's settings, replicas or limits,
// stay), and creates or updates the workers' consumer.
func ensure(ctx context.Context, js jetstream.JetStream, c NATSConfig) (jobs jetstream.Stream, results jetstream.Stream, err error) {
	jobs, err = stream(ctx, js, jetstream.StreamConfig{
		Name:        c.jobsStream(),
		Description: "Shakedown campaign jobs (work queue)",
		Subjects:    []string{c.Prefix + ".jobs.>"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    c.Replicas,
	})
	if err != nil {
		return nil, nil, err
	}
	results, err = stream(ctx, js, jetstream.StreamConfig{
		Name:        c.resultsStream(),
		Description: "Shakedown campaign results and dead letters",
		Subjects:    []string{c.Prefix + ".results.>"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		MaxAge:      c.ResultsMaxAge,
		Replicas:    c.Replicas,
	})
	if err != nil {
		return nil, nil, err
	}
	_, err = js.CreateOrUpdateConsumer(ctx, c.jobsStream(), jetstream.ConsumerConfig{
		Durable:       workersConsumer,
		Description:   "Shakedown workers",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       c.AckWait,
		MaxDeliver:    c.MaxDeliver,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("campaign: consumer %s on %s: %w", workersConsumer, c.jobsStream(), err)
	}
	return jobs, results, nil
}

// stream returns the stream cfg names, creating it with cfg if it is
// missing. An existing stream must have cfg's retention policy.
func stream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	s, err := js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		s, err = js.CreateStream(ctx, cfg)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // created meanwhile by another process
			s, err = js.Stream(ctx, cfg.Name)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("campaign: stream %s: %w", cfg.Name, err)
	}
	if got := s.CachedInfo().Config.Retention; got != cfg.Retention {
		return nil, fmt.Errorf("campaign: stream %s exists with retention %v; want %v", cfg.Name, got, cfg.Retention)
	}
	return s, nil
}

// NATS runs jobs on workers that pull them from a JetStream work queue (see
// NATSConfig and Worker). The process that calls Execute is the campaign's
// coordinator: it publishes the jobs and collects the results. One
// coordinator at a time per campaign.
type NATS struct {
	Conn   *nats.Conn // from Dial
	Config NATSConfig
	// Log, if not nil, receives notes for people: no worker is pulling yet,
	// a job was given up, a result was rejected.
	Log io.Writer

	rejected atomic.Int64
}

// ErrStreamsLost marks a NATS server that no longer holds a campaign's
// streams, or holds new empty ones: it was restarted with an empty (or
// another) JetStream store, or someone deleted them. The jobs it held are
// gone; running the campaign again (campaign resume) publishes them anew.
var ErrStreamsLost = errors.New("campaign: the NATS server lost the campaign's JetStream streams")

// Rejected is the number of result messages the coordinator has refused
// since n was made: unsigned or wrongly signed where Config.Key is set.
func (n *NATS) Rejected() int { return int(n.rejected.Load()) }

// maxRejectNotes bounds the rejections logged one by one; the rest are
// counted.
const maxRejectNotes = 10

var _ Executor = (*NATS)(nil)

// maxDeliveriesAdvisory is the advisory the server publishes when a job
// reached MaxDeliver without an ack.
type maxDeliveriesAdvisory struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries int    `json:"deliveries"`
}

// Execute implements Executor. It reads the campaign's results already in
// the results stream (from an earlier coordinator's run), removes the
// campaign's jobs left in the queue, publishes the jobs that still lack a
// result and collects a result for each: from the workers, or a dead
// letter for a job that failed MaxDeliver times or whose deliveries all
// went unacknowledged. When every job has a result, it removes the
// campaign's jobs and results from the server. If ctx ends first,
// everything is left in place: the workers go on, and the next Execute of
// the campaign collects what they produced.
//
// The coordinator reads results through an ordered consumer of its own,
// from the start of the stream each time, and acknowledges nothing: the
// store behind put is the record of what is done.
func (n *NATS) Execute(ctx context.Context, c ID, jobs []Job, put func(Delivery) error) error {
	cfg, err := n.Config.withDefaults()
	if err != nil {
		return err
	}
	if !c.Valid() {
		return fmt.Errorf("campaign: id %q is not a campaign id", c)
	}
	js, err := jetstream.New(n.Conn)
	if err != nil {
		return err
	}
	jobsStream, resultsStream, err := ensure(ctx, js, cfg)
	if err != nil {
		return err
	}
	pending := make(map[ID]bool, len(jobs))
	for _, j := range jobs {
		pending[j.ID] = true
	}
	filter := cfg.Prefix + ".results." + string(c) + ".*"
	info, err := resultsStream.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return fmt.Errorf("campaign: results stream: %w", err)
	}
	var backlog uint64
	for _, k := range info.State.Subjects {
		backlog += k
	}
	oc, err := js.OrderedConsumer(ctx, cfg.resultsStream(), jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{filter}, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return fmt.Errorf("campaign: results consumer: %w", err)
	}
	it, err := oc.Messages(jetstream.PullMaxMessages(256))
	if err != nil {
		return fmt.Errorf("campaign: results: %w", err)
	}
	msgs := make(chan jetstream.Msg)
	itErr := make(chan error, 1)
	go func() {
		for {
			m, err := it.Next()
			if err != nil {
				itErr <- err
				return
			}
			msgs <- m
		}
	}()
	defer func() {
		it.Stop()
		for { // let the forwarding goroutine end
			select {
			case <-msgs:
			case <-itErr:
				return
			}
		}
	}()
	adv := make(chan *nats.Msg, 256)
	sub, err := n.Conn.ChanSubscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+cfg.jobsStream()+"."+workersConsumer, adv)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()

	rejectedBefore := n.rejected.Load()
	take := func(m jetstream.Msg) error {
		if id := ID(m.Headers().Get(hdrJob)); id != "" && !pending[id] {
			return nil // a result already taken: skip it undecoded
		}
		if err := cfg.Key.verify(m.Subject(), m.Headers(), m.Data()); err != nil {
			if k := n.rejected.Add(1); k <= maxRejectNotes {
				n.logf("campaign: rejected a result on %s claiming job %.32q from worker %.64q: %v\n", m.Subject(), m.Headers().Get(hdrJob), m.Headers().Get(hdrWorker), err)
			} else if k == maxRejectNotes+1 {
				n.logf("campaign: rejecting more unsigned or forged results; counting them without a note each\n")
			}
			return nil
		}
		d, err := delivery(m)
		if err != nil {
			n.logf("campaign: ignoring a message on %s: %v\n", m.Subject(), err)
			return nil
		}
		if !pending[d.Job] {
			return nil
		}
		if err := put(d); err != nil {
			return err
		}
		delete(pending, d.Job)
		return nil
	}
	next := func() (jetstream.Msg, error) {
		select {
		case m := <-msgs:
			return m, nil
		case err := <-itErr:
			itErr <- err
			return nil, fmt.Errorf("campaign: results: %w", err)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}

	// Results that arrived while no coordinator was running.
	for k := uint64(0); k < backlog && len(pending) > 0; k++ {
		m, err := next()
		if err != nil {
			return err
		}
		if err := take(m); err != nil {
			return err
		}
	}
	if len(pending) == 0 {
		return n.finish(ctx, c, cfg, jobsStream, resultsStream)
	}

	// Jobs: the old copies go, the remaining jobs are published afresh.
	if err := jobsStream.Purge(ctx, jetstream.WithPurgeSubject(cfg.jobsSubject(c))); err != nil {
		return fmt.Errorf("campaign: purging old jobs: %w", err)
	}
	var futures []jetstream.PubAckFuture
	for _, j := range jobs {
		if !pending[j.ID] {
			continue
		}
		b, err := j.Encode()
		if err != nil {
			return err
		}
		m := nats.NewMsg(cfg.jobsSubject(c))
		m.Data = b
		m.Header.Set(hdrJob, string(j.ID))
		cfg.Key.sign(m)
		f, err := js.PublishMsgAsync(m)
		if err != nil {
			return fmt.Errorf("campaign: publishing job %s: %w", j.ID, err)
		}
		futures = append(futures, f)
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		return ctx.Err()
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("campaign: publishing a job: %w", err)
		}
	}
	if wc, err := js.Consumer(ctx, cfg.jobsStream(), workersConsumer); err == nil {
		if ci, err := wc.Info(ctx); err == nil && ci.NumWaiting == 0 && ci.NumAckPending == 0 && ci.NumPending > 0 {
			url := n.Conn.ConnectedUrlRedacted()
			n.logf("\ncampaign: %d jobs queued on %s; no worker is pulling yet (start one with: shakedown worker --nats %s)\n", len(futures), url, url)
		}
	}

	check := time.NewTicker(cfg.CheckEvery)
	defer check.Stop()
	defer func() {
		if k := n.rejected.Load() - rejectedBefore; k > 0 {
			n.logf("campaign: %s: rejected %d results not signed with the campaign key\n", c.Short(), k)
		}
	}()
	for len(pending) > 0 {
		select {
		case m := <-msgs:
			if err := take(m); err != nil {
				return err
			}
		case <-check.C:
			if err := streamsHeld(ctx, js, cfg, jobsStream, resultsStream); err != nil {
				return err
			}
		case a := <-adv:
			if err := n.giveUp(ctx, c, cfg, js, jobsStream, a.Data, pending); err != nil {
				n.logf("campaign: %v\n", err)
			}
		case err := <-itErr:
			itErr <- err
			return fmt.Errorf("campaign: results: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return n.finish(ctx, c, cfg, jobsStream, resultsStream)
}

// giveUp turns a job that reached MaxDeliver without an ack into a dead
// letter and removes it from the queue.
func (n *NATS) giveUp(ctx context.Context, c ID, cfg NATSConfig, js jetstream.JetStream, jobs jetstream.Stream, data []byte, pending map[ID]bool) error {
	var a maxDeliveriesAdvisory
	if err := json.Unmarshal(data, &a); err != nil {
		return fmt.Errorf("max-deliveries advisory: %w", err)
	}
	m, err := jobs.GetMsg(ctx, a.StreamSeq)
	if err != nil {
		return nil // gone already (acked late, or purged)
	}
	if m.Subject != cfg.jobsSubject(c) {
		return nil // another coordinator's job
	}
	if cfg.Key.verify(m.Subject, m.Header, m.Data) != nil {
		return jobs.DeleteMsg(ctx, a.StreamSeq) // not ours: planted
	}
	j, err := DecodeJob(m.Data)
	if err != nil || !pending[j.ID] {
		return jobs.DeleteMsg(ctx, a.StreamSeq)
	}
	res := Result{Job: j.ID, Error: fmt.Sprintf("no result after %d deliveries: the workers running it stopped or went silent for longer than the ack wait (%v)", a.Deliveries, cfg.AckWait)}
	n.logf("campaign: job %s given up: %s\n", j.ID.Short(), res.Error)
	if err := publishResult(ctx, js, cfg, c, res, kindDead, "coordinator", a.Deliveries, 0); err != nil {
		return err
	}
	return jobs.DeleteMsg(ctx, a.StreamSeq)
}

// finish removes a completed campaign's jobs and results from the server.
func (n *NATS) finish(ctx context.Context, c ID, cfg NATSConfig, jobs, results jetstream.Stream) error {
	if err := jobs.Purge(ctx, jetstream.WithPurgeSubject(cfg.jobsSubject(c))); err != nil {
		n.logf("campaign: cleaning up jobs: %v\n", err)
	}
	if err := results.Purge(ctx, jetstream.WithPurgeSubject(cfg.Prefix+".results."+string(c)+".*")); err != nil {
		n.logf("campaign: cleaning up results: %v\n", err)
	}
	return nil
}

func (n *NATS) logf(format string, args ...any) {
	if n.Log != nil {
		fmt.Fprintf(n.Log, format, args...)
	}
}

// publishResult publishes a result (kind ok or dead) and waits for the
// stream to store it. A result published twice (its job was delivered
// again) is stored twice; the coordinator takes the first. (A message id
// would make the server drop the copy, but it would also drop the results
// of the same campaign run again within the duplicate window, after the
// first run's results were purged.)
func publishResult(ctx context.Context, js jetstream.JetStream, cfg NATSConfig, c ID, r Result, kind, worker string, attempt int, elapsed time.Duration) error {
	b, err := r.Encode()
	if err != nil {
		return err
	}
	m := nats.NewMsg(cfg.resultsSubject(c, kind))
	m.Data = b
	m.Header.Set(hdrJob, string(r.Job))
	m.Header.Set(hdrWorker, worker)
	m.Header.Set(hdrAttempt, strconv.Itoa(attempt))
	m.Header.Set(hdrElapsed, strconv.FormatInt(int64(elapsed), 10))
	cfg.Key.sign(m)
	_, err = js.PublishMsg(ctx, m)
	if err != nil {
		return fmt.Errorf("campaign: publishing the result of job %s: %w", r.Job, err)
	}
	return nil
}

// delivery decodes a result message.
func delivery(m jetstream.Msg) (Delivery, error) {
	r, err := DecodeResult(m.Data())
	if err != nil {
		return Delivery{}, err
	}
	h := m.Headers()
	d := Delivery{Result: r, Worker: h.Get(hdrWorker)}
	d.Attempt, _ = strconv.Atoi(h.Get(hdrAttempt))
	if ns, err := strconv.ParseInt(h.Get(hdrElapsed), 10, 64); err == nil {
		d.Elapsed = time.Duration(ns)
	}
	return d, nil
}

// streamsHeld checks that the server still holds the streams jobs and
// results were when the coordinator started: the same streams (created at
// the same time), not missing nor made anew by a worker after the server
// lost them. A server that does not answer (disconnected, reconnecting)
// passes: only an answer that the streams are gone or new fails.
func streamsHeld(ctx context.Context, js jetstream.JetStream, cfg NATSConfig, jobs, results jetstream.Stream) error {
	for _, s := range []jetstream.Stream{jobs, results} {
		was := s.CachedInfo()
		ictx, cancel := context.WithTimeout(ctx, cfg.CheckEvery)
		now, err := js.Stream(ictx, was.Config.Name)
		cancel()
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("%w: stream %s is missing (was the server restarted with an empty JetStream store?); its queued jobs are gone: run the campaign again (shakedown campaign resume) to publish them anew", ErrStreamsLost, was.Config.Name)
		}
		if err != nil {
			continue
		}
		if got := now.CachedInfo().Created; !got.Equal(was.Created) {
			return fmt.Errorf("%w: stream %s was made anew at %s (it was created at %s; was the server restarted with an empty JetStream store?); its queued jobs are gone: run the campaign again (shakedown campaign resume) to publish them anew",
				ErrStreamsLost, was.Config.Name, got.UTC().Format(time.RFC3339), was.Created.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// Setup creates (or updates) the streams and the workers' consumer on the
// server, as coordinators and workers do when they start.
func Setup(ctx context.Context, nc *nats.Conn, cfg NATSConfig) error {
	c, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	_, _, err = ensure(ctx, js, c)
	return err
}
