import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;

import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Kafka 4.4 KafkaShareConsumers in one share group, for the share-group acceptance test.
 *
 * ShareConsumers BOOTSTRAP GROUP TOPIC MODE CONSUMERS EXPECTED QUIET_MS
 *
 * Sets the group's share.auto.offset.reset to earliest (IncrementalAlterConfigs, GROUP),
 * then runs CONSUMERS consumers on TOPIC, one thread each, until EXPECTED records are done
 * and nothing more arrives for QUIET_MS. MODE:
 *   explicit: each record acknowledged by its value's prefix: "reject" REJECT, "release"
 *             RELEASE on its first delivery then ACCEPT, "poison" always RELEASE (archived
 *             at the delivery limit), anything else ACCEPT;
 *   implicit: acknowledged implicitly by the next poll;
 *   hold:     one consumer polls until it holds records, prints "HELD n", then sleeps
 *             without acknowledging (the test kills it with kill -9).
 * Prints one line per delivery: "D <partition> <offset> <value> <deliveryCount> <consumer>",
 * then "DONE".
 */
public class ShareConsumers {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], group = args[1], topic = args[2], mode = args[3];
        int consumers = Integer.parseInt(args[4]);
        int expected = Integer.parseInt(args[5]);
        long quietMs = Long.parseLong(args[6]);

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
        p.put("share.acknowledgement.mode", mode.equals("implicit") ? "implicit" : "explicit");
        p.put("max.poll.records", "10");

        if (mode.equals("hold")) {
            KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p);
            c.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 60000;
            while (System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(500));
                if (!recs.isEmpty()) {
                    for (ConsumerRecord<String, String> r : recs)
                        System.out.println("D " + r.partition() + " " + r.offset() + " " + r.value() + " "
                            + r.deliveryCount().orElse((short) -1) + " hold");
                    System.out.println("HELD " + recs.count());
                    System.out.flush();
                    Thread.sleep(600000);
                }
            }
            System.exit(3);
        }

        AtomicInteger done = new AtomicInteger();
        AtomicLong lastDelivery = new AtomicLong(System.currentTimeMillis());
        AtomicBoolean stop = new AtomicBoolean();
        Map<String, Integer> deliveries = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(consumers);
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < consumers; i++) {
            final String name = "c" + i;
            running.add(pool.submit(() -> {
                try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
                    c.subscribe(List.of(topic));
                    while (!stop.get()) {
                        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
                        for (ConsumerRecord<String, String> r : recs) {
                            int n = deliveries.merge(r.value(), 1, Integer::sum);
                            short count = r.deliveryCount().orElse((short) -1);
                            synchronized (System.out) {
                                System.out.println("D " + r.partition() + " " + r.offset() + " " + r.value() + " "
                                    + count + " " + name);
                            }
                            lastDelivery.set(System.currentTimeMillis());
                            if (mode.equals("implicit")) {
                                done.incrementAndGet();
                                continue;
                            }
                            AcknowledgeType type = AcknowledgeType.ACCEPT;
                            if (r.value().startsWith("reject")) type = AcknowledgeType.REJECT;
                            else if (r.value().startsWith("poison")) type = AcknowledgeType.RELEASE;
                            else if (r.value().startsWith("release") && n == 1) type = AcknowledgeType.RELEASE;
                            c.acknowledge(r, type);
                            if (type != AcknowledgeType.RELEASE || r.value().startsWith("poison") && count >= 3)
                                done.incrementAndGet();
                        }
                        if (!recs.isEmpty()) c.commitSync(Duration.ofSeconds(10));
                    }
                }
                return null;
            }));
        }
        long deadline = System.currentTimeMillis() + 90000;
        while (System.currentTimeMillis() < deadline) {
            if (done.get() >= expected && System.currentTimeMillis() - lastDelivery.get() > quietMs) break;
            Thread.sleep(100);
        }
        stop.set(true);
        for (Future<?> f : running) f.get(30, TimeUnit.SECONDS);
        pool.shutdown();
        System.out.println("DONE " + done.get());
    }
}
