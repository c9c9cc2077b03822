import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;

import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Kafka 4.4 KafkaShareConsumers for the share coordinator failover test.
 *
 * ShareFailoverConsumers BOOTSTRAP GROUP TOPIC CONSUMERS EXPECTED QUIET_MS
 *
 * Sets the group's share.auto.offset.reset to earliest, then runs CONSUMERS consumers on
 * TOPIC (explicit acknowledgement, every record ACCEPTed, commitSync after each poll, a
 * short pause between polls so the run spans the broker kill) until EXPECTED distinct
 * records are acknowledged and nothing arrives for QUIET_MS. Prints
 * "D <partition> <offset> <value> <deliveryCount> <consumer>" per delivery and
 * "A <partition> <offset> <value>" per record whose acknowledgement the broker confirmed
 * (commitSync answered no error for its partition), then "DONE <acknowledged>".
 */
public class ShareFailoverConsumers {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], group = args[1], topic = args[2];
        int consumers = Integer.parseInt(args[3]);
        int expected = Integer.parseInt(args[4]);
        long quietMs = Long.parseLong(args[5]);

        Properties ap = new Properties();
        ap.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(ap)) {
            ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, group);
            admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(
                new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                .all().get(30, TimeUnit.SECONDS);
        }

        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        p.put("share.acknowledgement.mode", "explicit");
        p.put("max.poll.records", "5");

        Set<String> acked = ConcurrentHashMap.newKeySet();
        AtomicLong lastDelivery = new AtomicLong(System.currentTimeMillis());
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(consumers);
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < consumers; i++) {
            final String name = "c" + i;
            running.add(pool.submit(() -> {
                try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
                    c.subscribe(List.of(topic));
                    while (!stop.get()) {
                        ConsumerRecords<String, String> recs;
                        try {
                            recs = c.poll(Duration.ofMillis(200));
                        } catch (KafkaException e) {
                            System.out.println("E poll " + e);
                            continue;
                        }
                        if (recs.isEmpty()) continue;
                        for (ConsumerRecord<String, String> r : recs) {
                            synchronized (System.out) {
                                System.out.println("D " + r.partition() + " " + r.offset() + " " + r.value() + " "
                                    + r.deliveryCount().orElse((short) -1) + " " + name);
                            }
                            c.acknowledge(r, AcknowledgeType.ACCEPT);
                        }
                        lastDelivery.set(System.currentTimeMillis());
                        Map<TopicIdPartition, Optional<KafkaException>> result;
                        try {
                            result = c.commitSync(Duration.ofSeconds(30));
                        } catch (KafkaException e) {
                            System.out.println("E commit " + e);
                            continue;
                        }
                        for (ConsumerRecord<String, String> r : recs) {
                            boolean ok = result.entrySet().stream().anyMatch(en ->
                                en.getKey().topic().equals(r.topic()) && en.getKey().partition() == r.partition()
                                    && en.getValue().isEmpty());
                            if (ok) {
                                acked.add(r.value());
                                synchronized (System.out) {
                                    System.out.println("A " + r.partition() + " " + r.offset() + " " + r.value());
                                }
                            }
                        }
                        System.out.flush();
                        Thread.sleep(300);
                    }
                }
                return null;
            }));
        }
        long deadline = System.currentTimeMillis() + 120000;
        while (System.currentTimeMillis() < deadline) {
            if (acked.size() >= expected && System.currentTimeMillis() - lastDelivery.get() > quietMs) break;
            Thread.sleep(100);
        }
        stop.set(true);
        for (Future<?> f : running) f.get(60, TimeUnit.SECONDS);
        pool.shutdown();
        System.out.println("DONE " + acked.size());
    }
}
