// A Java transactional producer for the transactions acceptance tests, compiled at test time
// against the kafka-clients jar of the Kafka line under test (3.9 or 4.x).
//
//   java TxnProducer <bootstrap> commit-abort <topic> <partitions> <transactions> <prefix>
//       transaction t sends one record "<prefix>-t<t>-p<p>" to each partition p; even
//       transactions are committed, odd ones aborted; the last one is always committed.
//   java TxnProducer <bootstrap> commit-abort <topic> <partitions> <transactions> <prefix> <group>
//       the same, and each transaction also commits offset t+1 of partition 0 of <topic>
//       for consumer group <group> (sendOffsetsToTransaction).
//   java TxnProducer <bootstrap> burst <topic> <partitions> <transactions> <records> <prefix> <group>
//       each transaction sends <records> records "<prefix>-t<t>-p<p>-r<r>" to each partition
//       p, one batch each (so several Produce requests of the producer are in flight at
//       once, as Kafka Streams' are), commits offset t+1 for <group>, and commits.
//   java TxnProducer <bootstrap> zombie <topic> <prefix>
//       two producers with one transactional id: the second fences the first; prints
//       "fenced <exception class>" when the first one's late send or commit is refused.
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

public class TxnProducer {
    static KafkaProducer<String, String> producer(String bootstrap, String txnId) {
        return producer(bootstrap, txnId, null);
    }

    /** `batchSize` (when set) small enough for one record a batch. */
    static KafkaProducer<String, String> producer(String bootstrap, String txnId, String batchSize) {
        Properties p = new Properties();
        if (batchSize != null) {
            p.put("batch.size", batchSize);
        }
        p.put("bootstrap.servers", bootstrap);
        p.put("transactional.id", txnId);
        p.put("transaction.timeout.ms", "10000");
        p.put("max.block.ms", "30000");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        if (args[1].equals("commit-abort")) {
            commitAbort(bootstrap, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]), args[5],
                        args.length > 6 ? args[6] : null);
        } else if (args[1].equals("burst")) {
            burst(bootstrap, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                  Integer.parseInt(args[5]), args[6], args[7]);
        } else {
            zombie(bootstrap, args[2], args[3]);
        }
    }

    static void commitAbort(String bootstrap, String topic, int partitions, int transactions,
                            String prefix, String group) throws Exception {
        try (KafkaProducer<String, String> p = producer(bootstrap, prefix + "-txn")) {
            p.initTransactions();
            for (int t = 0; t < transactions; t++) {
                p.beginTransaction();
                for (int part = 0; part < partitions; part++) {
                    String v = prefix + "-t" + t + "-p" + part;
                    p.send(new ProducerRecord<>(topic, part, v, v));
                }
                if (group != null) {
                    p.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(t + 1)),
                                               new ConsumerGroupMetadata(group));
                }
                p.flush();  // the records are in the log before the outcome is decided
                if (t % 2 == 1 && t != transactions - 1) {
                    p.abortTransaction();
                    System.out.println("aborted " + t);
                } else {
                    p.commitTransaction();
                    System.out.println("committed " + t);
                }
            }
        }
    }

    static void burst(String bootstrap, String topic, int partitions, int transactions, int records,
                      String prefix, String group) throws Exception {
        try (KafkaProducer<String, String> p = producer(bootstrap, prefix + "-txn", "1")) {
            p.initTransactions();
            for (int t = 0; t < transactions; t++) {
                p.beginTransaction();
                for (int r = 0; r < records; r++) {
                    for (int part = 0; part < partitions; part++) {
                        String v = prefix + "-t" + t + "-p" + part + "-r" + r;
                        p.send(new ProducerRecord<>(topic, part, v, v));
                    }
                }
                p.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(t + 1)),
                                           new ConsumerGroupMetadata(group));
                p.commitTransaction();
                System.out.println("committed " + t);
            }
        }
    }

    static void zombie(String bootstrap, String topic, String prefix) throws Exception {
        String txnId = prefix + "-zombie";
        KafkaProducer<String, String> old = producer(bootstrap, txnId);
        old.initTransactions();
        old.beginTransaction();
        old.send(new ProducerRecord<>(topic, 0, "old", prefix + "-old-before")).get();
        try (KafkaProducer<String, String> fresh = producer(bootstrap, txnId)) {
            fresh.initTransactions();  // fences `old` and aborts its open transaction
            try {
                Future<RecordMetadata> f = old.send(new ProducerRecord<>(topic, 0, "old", prefix + "-old-after"));
                old.commitTransaction();
                f.get();
                System.out.println("zombie committed");
            } catch (Exception e) {
                Throwable c = e.getCause() != null && e.getClass().getName().endsWith("ExecutionException") ? e.getCause() : e;
                System.out.println("fenced " + c.getClass().getSimpleName());
            }
            fresh.beginTransaction();
            fresh.send(new ProducerRecord<>(topic, 0, "new", prefix + "-new"));
            fresh.commitTransaction();
            System.out.println("committed new");
        } finally {
            old.close(java.time.Duration.ofSeconds(5));
        }
    }
}
