// A franz-go consume-transform-produce worker for the transactional stress test: the same
// work as TxnStress.java and txn_client.py's `stress` mode, with franz-go's transactional
// API (a GroupTransactSession: the consumer group commits its offsets inside the
// transaction). Built by tests/support/go_build.py into the kafpy cache.
//
//	txnstress <bootstrap> <source> <partition> <sink> <group> <txnId> <seed> <abandonAt>
//
// copies partition <partition> of <source>, from <group>'s committed offset up to the end
// offset seen at start, as "out-<value>" to the same partition of <sink>, in short
// transactions (1-5 records) that commit the consumed offsets. franz-go only commits
// offsets in a transaction for a group it consumes in, so the workers of one run share
// <group> as static members (instance id "<group>-p<partition>", so a new incarnation takes
// its predecessor's place at once) and a balancer that gives each member the partition it
// names in its metadata. Seeded at random: one transaction in five is aborted (the session
// rewinds to the committed offsets and the records are redone); after one commit in three
// a throw-away transaction ("junk-...") is begun and aborted at once (its EndTxn arrives
// while the commit's markers may still be out). Transaction <abandonAt> (1-based; 0: none)
// is abandoned mid-way: its records are sent and acknowledged, then the process exits with
// code 3 without ending it. A rebalance that turns a commit into an abort (the session
// does that) redoes the records too; a record that fails is fatal, as for the Java worker
// (the records are acknowledged before each commit: franz-go would commit without the
// failed one). Prints "done <commits>" at the end; exit code 1 on any error.
package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// runTimeout bounds the whole worker (the test waits 180 s for it).
const runTimeout = 170 * time.Second

func main() {
	if len(os.Args) != 9 {
		fail("usage: txnstress BOOTSTRAP SOURCE PARTITION SINK GROUP TXN_ID SEED ABANDON_AT")
	}
	bootstrap, source, sink, group, txnID := os.Args[1], os.Args[2], os.Args[4], os.Args[5], os.Args[6]
	partition := int32(mustInt(os.Args[3]))
	seed := uint64(mustInt(os.Args[7]))
	abandonAt := mustInt(os.Args[8])
	rnd := rand.New(rand.NewPCG(seed, 0))
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()

	s, err := kgo.NewGroupTransactSession(
		kgo.SeedBrokers(bootstrap),
		kgo.TransactionalID(txnID),
		kgo.TransactionTimeout(10*time.Second),
		kgo.ProducerLinger(0),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ConsumerGroup(group),
		kgo.InstanceID(fmt.Sprintf("%s-p%d", group, partition)),
		kgo.Balancers(pinnedBalancer{partition: partition}),
		kgo.ConsumeTopics(source),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.FetchMaxWait(200*time.Millisecond),
		kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelInfo, func() string {
			return time.Now().UTC().Format("15:04:05.000 ")
		})),
	)
	if err != nil {
		fail("client: %v", err)
	}
	end := endOffset(ctx, s.Client(), source, partition)

	transactions, commits := 0, 0
	for committedOffset(s.Client(), source, partition) < end {
		if ctx.Err() != nil {
			fail("not done after %s: committed %d of %d", runTimeout, committedOffset(s.Client(), source, partition), end)
		}
		records := poll(ctx, s, rnd.IntN(5)+1, source, partition)
		if len(records) == 0 {
			continue
		}
		transactions++
		if err := s.Begin(); err != nil {
			fail("begin: %v", err)
		}
		produced := &produceErrors{}
		for _, r := range records {
			out := &kgo.Record{Topic: sink, Partition: partition, Key: r.Key,
				Value: append([]byte("out-"), r.Value...)}
			produced.wg.Add(1)
			s.Produce(ctx, out, produced.promise)
		}
		if transactions == abandonAt {
			flush(ctx, s, produced)
			fmt.Printf("abandoned %d\n", transactions)
			os.Exit(3)
		}
		if rnd.IntN(5) == 0 {
			finish(ctx, s, kgo.TryAbort) // the session rewinds to the committed offsets: redo
			produced.wait()              // the aborted records' results do not matter
			continue
		}
		// franz-go would commit a transaction one of whose records failed: check first
		flush(ctx, s, produced)
		if !finish(ctx, s, kgo.TryCommit) { // a rebalance: aborted, the records are redone
			fmt.Fprintf(os.Stderr, "transaction %d aborted instead of committed\n", transactions)
			continue
		}
		commits++
		if rnd.IntN(3) == 0 {
			if err := s.Begin(); err != nil {
				fail("begin: %v", err)
			}
			s.Produce(ctx, &kgo.Record{Topic: sink, Partition: partition, Value: []byte("junk-" + txnID)}, nil)
			finish(ctx, s, kgo.TryAbort)
		}
	}
	s.Close()
	fmt.Printf("done %d\n", commits)
}

// finish ends the session's transaction; any error is fatal, as a commit or abort that
// cannot end (the producer fenced, say) must fail the run.
func finish(ctx context.Context, s *kgo.GroupTransactSession, how kgo.TransactionEndTry) bool {
	committed, err := s.End(ctx, how)
	if err != nil {
		fail("end transaction (commit %v): %v", bool(how), err)
	}
	return committed
}

// flush waits until the transaction's records are acknowledged; a failed one is fatal (on
// Apache Kafka none fails here, and the Java worker dies on one too).
func flush(ctx context.Context, s *kgo.GroupTransactSession, produced *produceErrors) {
	if err := s.Client().Flush(ctx); err != nil {
		fail("flush: %v", err)
	}
	if err := produced.wait(); err != nil {
		fail("produce: %v", err)
	}
}

// poll returns up to max records of the session's partition, waiting at most a second.
func poll(ctx context.Context, s *kgo.GroupTransactSession, max int, topic string, partition int32) []*kgo.Record {
	pollCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	fetches := s.PollRecords(pollCtx, max)
	for _, e := range fetches.Errors() {
		if errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, context.Canceled) {
			continue
		}
		fail("fetch %s[%d]: %v", e.Topic, e.Partition, e.Err)
	}
	records := fetches.Records()
	for _, r := range records {
		if r.Topic != topic || r.Partition != partition {
			fail("got a record of %s[%d], assigned only %s[%d]", r.Topic, r.Partition, topic, partition)
		}
	}
	return records
}

// committedOffset is the group's committed offset of the partition as the client knows it
// (after the join's OffsetFetch and each committed transaction); -1 before the first join.
func committedOffset(cl *kgo.Client, topic string, partition int32) int64 {
	if o, ok := cl.CommittedOffsets()[topic][partition]; ok {
		return o.Offset
	}
	return -1
}

// endOffset asks the partition's leader for its end offset (ListOffsets, latest).
func endOffset(ctx context.Context, cl *kgo.Client, topic string, partition int32) int64 {
	req := kmsg.NewPtrListOffsetsRequest()
	t := kmsg.NewListOffsetsRequestTopic()
	t.Topic = topic
	p := kmsg.NewListOffsetsRequestTopicPartition()
	p.Partition = partition
	p.Timestamp = -1
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		fail("list offsets: %v", err)
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				fail("list offsets %s[%d]: %v", topic, partition, err)
			}
			return rp.Offset
		}
	}
	fail("list offsets: no answer for %s[%d]", topic, partition)
	return 0
}

// produceErrors keeps the first error of one transaction's records.
type produceErrors struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	first error
}

func (p *produceErrors) promise(_ *kgo.Record, err error) {
	defer p.wg.Done()
	if err != nil {
		p.mu.Lock()
		if p.first == nil {
			p.first = err
		}
		p.mu.Unlock()
	}
}

func (p *produceErrors) wait() error {
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}

// pinnedBalancer gives each member of the group the partition it names in its join
// metadata (user data), so each worker of a run keeps its own partition however the
// members come and go, as the Java and librdkafka workers do with assign().
type pinnedBalancer struct{ partition int32 }

func (pinnedBalancer) ProtocolName() string { return "kafpy-pinned" }

func (b pinnedBalancer) JoinGroupMetadata(interests []string, _ map[string][]int32, generation int32) []byte {
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Version = 3
	meta.Topics = interests
	meta.UserData = []byte(strconv.Itoa(int(b.partition)))
	meta.Generation = generation
	return meta.AppendTo(nil)
}

func (pinnedBalancer) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	return kgo.ParseConsumerSyncAssignment(assignment)
}

func (b pinnedBalancer) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	cb, err := kgo.NewConsumerBalancer(b, members)
	return cb, cb.MemberTopics(), err
}

func (pinnedBalancer) IsCooperative() bool { return false }

func (pinnedBalancer) Balance(cb *kgo.ConsumerBalancer, topics map[string]int32) kgo.IntoSyncAssignment {
	plan := cb.NewPlan()
	cb.EachMember(func(member *kmsg.JoinGroupResponseMember, meta *kmsg.ConsumerMemberMetadata) {
		p, err := strconv.Atoi(string(meta.UserData))
		if err != nil {
			cb.SetError(fmt.Errorf("member %s names no partition: %q", member.MemberID, meta.UserData))
			return
		}
		for _, topic := range meta.Topics {
			if int32(p) < topics[topic] {
				plan.AddPartition(member, topic, int32(p))
			}
		}
	})
	return plan
}

func mustInt(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		fail("not a number: %q", s)
	}
	return n
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "txnstress: "+format+"\n", args...)
	os.Exit(1)
}
