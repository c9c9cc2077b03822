// One member of the protocol migration test (test_protocol_migration.py): a Java
// KafkaConsumer, compiled at test time against the Kafka 4.x client jars.
//
//   java MigrationMember <bootstrap> <group> <topic> <classic|consumer> <client id>
//
// Subscribes to <topic> in <group> with the given group protocol (classic members use
// the cooperative-sticky assignor) and reports on stdout, one line each, flushed at once:
//   assigned <nanoTime> <p,p,...> / revoked <nanoTime> <p,...> / lost <nanoTime> <p,...>   from its
//   rebalance listener (System.nanoTime: CLOCK_MONOTONIC, as the test's time.monotonic_ns)
//   records <value> <value> ...                             what one poll returned
//   error <exception>                                       a poll or close failed
//   closed                                                  after close() returned
// A line "stop" (or the end of) stdin makes it close the consumer, which commits and
// revokes (the listener runs) before leaving the group, and exit.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.StringJoiner;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

public class MigrationMember {
    static synchronized void report(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static String partitions(Collection<TopicPartition> tps) {
        StringJoiner j = new StringJoiner(",");
        for (TopicPartition tp : tps) j.add(Integer.toString(tp.partition()));
        return j.toString();
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], group = args[1], topic = args[2], protocol = args[3];
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("client.id", args[4]);
        p.put("auto.offset.reset", "earliest");
        p.put("auto.commit.interval.ms", "200");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        p.put("group.protocol", protocol);
        if (protocol.equals("classic")) {
            p.put("partition.assignment.strategy",
                  "org.apache.kafka.clients.consumer.CooperativeStickyAssignor");
            p.put("session.timeout.ms", "10000");
            p.put("heartbeat.interval.ms", "500");
        }
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p);
        Thread stdin = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
                String line;
                while ((line = in.readLine()) != null && !line.trim().equals("stop")) { }
            } catch (Exception e) { }
            stopping = true;
            consumer.wakeup();
        });
        stdin.setDaemon(true);
        stdin.start();
        consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
            public void onPartitionsAssigned(Collection<TopicPartition> tps) { report("assigned " + System.nanoTime() + " " + partitions(tps)); }
            public void onPartitionsRevoked(Collection<TopicPartition> tps) { report("revoked " + System.nanoTime() + " " + partitions(tps)); }
            public void onPartitionsLost(Collection<TopicPartition> tps) { report("lost " + System.nanoTime() + " " + partitions(tps)); }
        });
        try {
            while (!stopping) {
                ConsumerRecords<String, String> records;
                try {
                    records = consumer.poll(Duration.ofMillis(200));
                } catch (WakeupException e) {
                    break;
                }
                if (records.isEmpty()) continue;
                StringBuilder line = new StringBuilder("records");
                for (ConsumerRecord<String, String> r : records) line.append(' ').append(r.value());
                report(line.toString());
            }
        } catch (Exception e) {
            report("error " + e);
        } finally {
            try {
                consumer.close(Duration.ofSeconds(30));
            } catch (Exception e) {
                report("error " + e);
            }
            report("closed");
        }
    }

    static volatile boolean stopping = false;
}
