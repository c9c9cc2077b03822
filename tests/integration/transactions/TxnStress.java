// A Java consume-transform-produce worker for the transactional stress test, compiled at
// test time against the kafka-clients jar of the Kafka line under test (4.x: transaction
// version 2, an epoch bump at every commit or abort).
//
//   java TxnStress <bootstrap> <source> <partition> <sink> <group> <txnId> <seed> <abandonAt>
//       copies partition <partition> of <source> from <group>'s committed offset up to the
//       end offset seen at start, "out-<value>" to the same partition of <sink>, in short
//       transactions (1-5 records, max.poll.records 5) that commit the consumed offsets
//       (sendOffsetsToTransaction with the consumer's group metadata). Seeded at random:
//       one transaction in five is aborted and its records redone; after one commit in
//       three a throw-away transaction ("junk-...") is begun and aborted at once (the next
//       EndTxn arrives while the commit's markers are still out). Transaction <abandonAt>
//       (1-based; 0: none) is abandoned mid-way: its records are sent and flushed, then the
//       process halts with exit code 3 without ending it. Prints "done <commits>" at the end.
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class TxnStress {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], source = args[1], sink = args[3], group = args[4], txnId = args[5];
        int partition = Integer.parseInt(args[2]);
        Random rnd = new Random(Long.parseLong(args[6]));
        int abandonAt = Integer.parseInt(args[7]);

        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("group.id", group);
        c.put("enable.auto.commit", "false");
        c.put("isolation.level", "read_committed");
        c.put("max.poll.records", "5");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("transactional.id", txnId);
        p.put("transaction.timeout.ms", "10000");
        p.put("max.block.ms", "60000");
        p.put("linger.ms", "0");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());

        TopicPartition in = new TopicPartition(source, partition);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c);
             KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();    // fences an abandoned incarnation, aborts its transaction
            consumer.assign(List.of(in));
            OffsetAndMetadata committed = consumer.committed(java.util.Set.of(in)).get(in);
            long position = committed == null ? 0 : committed.offset();
            consumer.seek(in, position);
            long end = consumer.endOffsets(List.of(in)).get(in);
            int transactions = 0, commits = 0;
            while (position < end) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    continue;
                }
                transactions++;
                producer.beginTransaction();
                long next = position;
                for (ConsumerRecord<String, String> r : records.records(in)) {
                    producer.send(new ProducerRecord<>(sink, partition, r.key(), "out-" + r.value()));
                    next = r.offset() + 1;
                }
                if (transactions == abandonAt) {
                    producer.flush();
                    System.out.println("abandoned " + transactions);
                    System.out.flush();
                    Runtime.getRuntime().halt(3);
                }
                if (rnd.nextInt(5) == 0) {
                    producer.abortTransaction();
                    consumer.seek(in, position);        // redo these records
                    continue;
                }
                producer.sendOffsetsToTransaction(Map.of(in, new OffsetAndMetadata(next)),
                                                  consumer.groupMetadata());
                producer.commitTransaction();
                commits++;
                position = next;
                if (rnd.nextInt(3) == 0) {
                    producer.beginTransaction();
                    producer.send(new ProducerRecord<>(sink, partition, null, "junk-" + txnId));
                    producer.abortTransaction();
                }
            }
            System.out.println("done " + commits);
        }
    }
}
