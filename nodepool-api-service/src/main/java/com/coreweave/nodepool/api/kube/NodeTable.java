package com.coreweave.nodepool.api.kube;

import com.coreweave.nodepool.schema.resource.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The columns of {@code kubectl get nodes}: Kubernetes' own first, then where the node comes from. */
public final class NodeTable implements TableConvertor<io.fabric8.kubernetes.api.model.Node> {

    @Override
    public List<Table.Column> columns() {
        return List.of(
                Table.Column.name("Name of the node"),
                new Table.Column("Status", "string", "", "Ready or NotReady; SchedulingDisabled when cordoned", 0),
                new Table.Column("Roles", "string", "", "The roles of the node", 0),
                new Table.Column("Age", "string", "", "Time since the node was assigned to its pool", 0),
                new Table.Column("Node Pool", "string", "", "The NodePool the node belongs to", 0),
                new Table.Column("Instance Type", "string", "", "The node's instance type", 0),
                new Table.Column("Zone", "string", "", "The node's availability zone", 1),
                new Table.Column("Node Profile", "string", "", "The node configuration the node runs", 1),
                new Table.Column("Provider ID", "string", "", "The machine behind the node", 1));
    }

    @Override
    public List<Object> cells(io.fabric8.kubernetes.api.model.Node node, Instant now) {
        Map<String, String> labels = node.getMetadata().getLabels() == null
                ? Map.of()
                : node.getMetadata().getLabels();
        List<Object> cells = new ArrayList<>();
        cells.add(node.getMetadata().getName());
        cells.add(status(node));
        cells.add("<none>");
        String created = node.getMetadata().getCreationTimestamp();
        cells.add(created == null ? "<unknown>" : HumanDuration.of(Duration.between(Instant.parse(created), now)));
        cells.add(labels.get(Node.LABEL_NODE_POOL));
        cells.add(labels.get(Node.LABEL_INSTANCE_TYPE));
        cells.add(labels.get(Node.LABEL_ZONE));
        cells.add(node.getStatus().getNodeInfo().getOsImage());
        cells.add(node.getSpec().getProviderID());
        return cells;
    }

    private static String status(io.fabric8.kubernetes.api.model.Node node) {
        boolean ready = node.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
        String status = ready ? "Ready" : "NotReady";
        return Boolean.TRUE.equals(node.getSpec().getUnschedulable()) ? status + ",SchedulingDisabled" : status;
    }

    /** The fields {@code ?fieldSelector=} can name for nodes, with this node's values. */
    public static Map<String, String> fields(io.fabric8.kubernetes.api.model.Node node) {
        return Map.of(
                "metadata.name",
                node.getMetadata().getName(),
                "spec.unschedulable",
                Boolean.toString(Boolean.TRUE.equals(node.getSpec().getUnschedulable())));
    }
}
