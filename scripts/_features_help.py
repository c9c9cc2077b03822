"""The help screens of kafka-features (``-h``): Apache Kafka 4.4's FeatureCommand's argparse4j
text, main and per subcommand. Who calls it: scripts.kafka_features."""
from __future__ import annotations

MAIN_HELP = """usage: kafka-features [-h] [--command-config COMMAND_CONFIG]
                      [--bootstrap-server BOOTSTRAP_SERVER |
                      --bootstrap-controller BOOTSTRAP_CONTROLLER]
                      {describe,upgrade,downgrade,disable,version-mapping,feature-dependencies}
                      ...

This tool manages feature flags in Kafka.

positional arguments:
  {describe,upgrade,downgrade,disable,version-mapping,feature-dependencies}
    describe             Describes the current active feature flags.
    upgrade              Upgrade one or more feature flags.
    downgrade            Downgrade one or more feature flags.
    disable              Disable one or  more  feature  flags.  This is the
                         same as downgrading the version to zero.
    version-mapping      Look up the  corresponding  features  for  a given
                         metadata version. Using  the  command  with  no --
                         release-version  argument will  return the mapping
                         for the latest stable metadata version
    feature-dependencies
                         Look up dependencies for  a given feature version.
                         If the feature is  not  known  or  the version not
                         yet  defined,  an   error   is   thrown.  Multiple
                         features can be specified.

optional arguments:
  -h, --help             show this help message and exit
  --bootstrap-server BOOTSTRAP_SERVER
                         A comma-separated list of  host:port  pairs to use
                         for  establishing  the  connection  to  the  Kafka
                         cluster.
  --bootstrap-controller BOOTSTRAP_CONTROLLER
                         A comma-separated list of  host:port  pairs to use
                         for  establishing  the  connection  to  the  KRaft
                         quorum.
  --command-config COMMAND_CONFIG
                         Property file containing configs  to  be passed to
                         Admin Client.
"""
SUBCOMMAND_HELP: dict[str, str] = {
    "upgrade": """usage: kafka-features upgrade [-h] [--metadata METADATA]
                      [--release-version RELEASE_VERSION]
                      [--feature FEATURE] [--dry-run]

optional arguments:
  -h, --help             show this help message and exit
  --metadata METADATA    DEPRECATED  --  The  level   to  which  we  should
                         upgrade the metadata. For example, 3.3-IV3.
  --release-version RELEASE_VERSION
                         The release version  to  update  all  features to.
                         For example, 3.9-IV0  will set metadata.version=21
                         and  kraft.version=1.   Use   the  version-mapping
                         command to learn which  features  will  be set for
                         any given version.
  --feature FEATURE      A  feature   upgrade   we   should   perform,   in
                         feature=level  format.  For   example:  `metadata.
                         version=5`.
  --dry-run              Validate this upgrade, but do not perform it.
""",
    "downgrade": """usage: kafka-features downgrade [-h] [--metadata METADATA]
                      [--release-version RELEASE_VERSION]
                      [--feature FEATURE] [--unsafe] [--dry-run]

optional arguments:
  -h, --help             show this help message and exit
  --metadata METADATA    DEPRECATED  --  The  level   to  which  we  should
                         downgrade the metadata. For example, 3.3-IV0.
  --release-version RELEASE_VERSION
                         The release version to  downgrade all features to.
                         For example, 3.9-IV0  will set metadata.version=21
                         and  kraft.version=1.   Use   the  version-mapping
                         command to learn which  features  will  be set for
                         any given version.
  --feature FEATURE      A  feature  downgrade   we   should   perform,  in
                         feature=level  format.  For   example:  `metadata.
                         version=5`.
  --unsafe               Perform   this   downgrade   even    if   it   may
                         irreversibly destroy metadata.
  --dry-run              Validate this downgrade, but do not perform it.
""",
    "disable": """usage: kafka-features disable [-h] [--feature FEATURE] [--unsafe]
                      [--dry-run]

optional arguments:
  -h, --help             show this help message and exit
  --feature FEATURE      A feature flag to disable.
  --unsafe               Disable  this  feature   flag   even   if  it  may
                         irreversibly destroy metadata.
  --dry-run              Perform a dry-run of this disable operation.
""",
    "describe": """usage: kafka-features describe [-h] [--node-id NODE_ID]

optional arguments:
  -h, --help             show this help message and exit
  --node-id NODE_ID      The node id to which  the requests should be sent.
                         If not specified, the requests  will be sent to an
                         arbitrary controller/broker.
""",
    "version-mapping": """usage: kafka-features version-mapping [-h]
                      [--release-version RELEASE_VERSION]

optional arguments:
  -h, --help             show this help message and exit
  --release-version RELEASE_VERSION
                         The release version to  use  for the corresponding
                         feature  mapping.  The  minimum  is  3.3-IV3;  the
                         default is 4.4-IV2
""",
    "feature-dependencies": """usage: kafka-features feature-dependencies [-h] --feature FEATURE

optional arguments:
  -h, --help             show this help message and exit
  --feature FEATURE      The feature and  version  to  look up dependencies
                         for,  in  feature=version   format.  For  example:
                         `metadata.version=5`.
""",
}


def help_text(argv: list[str]) -> str:
    """The screen for the subcommand named before ``-h`` (the main one without)."""
    for arg in argv:
        if arg in SUBCOMMAND_HELP:
            return SUBCOMMAND_HELP[arg]
        if arg in ("-h", "--help"):
            break
    return MAIN_HELP
