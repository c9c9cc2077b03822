"""Kafka's MBeans get the Prometheus names the JMX exporter gives them under Strimzi's rules."""
from kafpy.metrics.names import gauge_name, histogram_names, meter_name


def test_a_meter_drops_per_sec_and_counts_in_total():
    assert meter_name("server", "BrokerTopicMetrics", "MessagesInPerSec") == "kafka_server_brokertopicmetrics_messagesin_total"
    assert meter_name("network", "RequestMetrics", "RequestsPerSec") == "kafka_network_requestmetrics_requests_total"
    assert meter_name("controller", "ControllerStats", "UncleanLeaderElectionsPerSec") == \
        "kafka_controller_controllerstats_uncleanleaderelections_total"


def test_a_gauge_is_domain_type_and_name_lowercased():
    assert gauge_name("server", "ReplicaManager", "UnderReplicatedPartitions") == \
        "kafka_server_replicamanager_underreplicatedpartitions"
    assert gauge_name("controller", "KafkaController", "ActiveControllerCount") == \
        "kafka_controller_kafkacontroller_activecontrollercount"


def test_dots_of_a_domain_become_underscores():
    assert gauge_name("coordinator.group", "GroupMetadataManager", "NumGroups") == \
        "kafka_coordinator_group_groupmetadatamanager_numgroups"


def test_a_histogram_has_a_percentile_gauge_and_a_count():
    assert histogram_names("network", "RequestMetrics", "TotalTimeMs") == \
        ("kafka_network_requestmetrics_totaltimems", "kafka_network_requestmetrics_totaltimems_count")
