package dev.limiter.test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** One node's view of a Redis Cluster, parsed from its {@code CLUSTER NODES} reply. */
record ClusterView(List<Node> nodes) {

    /** A line of {@code CLUSTER NODES}: who a node is, what it is, and which slots it serves. */
    record Node(String id, String address, Set<String> flags, String masterId, List<SlotRange> slots) {

        boolean isMyself() {
            return flags.contains("myself");
        }

        boolean isMaster() {
            return flags.contains("master");
        }

        /** Marked as failing by this view, for certain ({@code fail}) or not yet agreed ({@code fail?}). */
        boolean isFailing() {
            return flags.contains("fail") || flags.contains("fail?");
        }

        /** Not (yet) a full member: being introduced, or its address unknown. */
        boolean isJoining() {
            return flags.contains("handshake") || flags.contains("noaddr");
        }

        boolean serves(int slot) {
            return slots.stream().anyMatch(range -> range.first() <= slot && slot <= range.last());
        }
    }

    /** Slots first to last, both included. */
    record SlotRange(int first, int last) {
        @Override
        public String toString() {
            return first == last ? Integer.toString(first) : first + "-" + last;
        }
    }

    static ClusterView parse(String text) {
        List<Node> nodes = new ArrayList<>();
        for (String line : text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            // <id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent> <pong-recv> <epoch> <link> <slot>...
            String[] fields = line.split(" ");
            if (fields.length < 8) {
                throw new IllegalArgumentException("not a CLUSTER NODES line: " + line);
            }
            List<SlotRange> slots = new ArrayList<>();
            for (int i = 8; i < fields.length; i++) {
                if (fields[i].startsWith("[")) {
                    continue; // a slot being imported or migrated: still served by its current owner
                }
                int dash = fields[i].indexOf('-');
                slots.add(dash < 0
                        ? new SlotRange(Integer.parseInt(fields[i]), Integer.parseInt(fields[i]))
                        : new SlotRange(Integer.parseInt(fields[i].substring(0, dash)),
                                Integer.parseInt(fields[i].substring(dash + 1))));
            }
            nodes.add(new Node(fields[0], address(fields[1]), Set.of(fields[2].split(",")),
                    fields[3].equals("-") ? null : fields[3], List.copyOf(slots)));
        }
        return new ClusterView(List.copyOf(nodes));
    }

    /** "ip:port" from "ip:port@busport[,hostname]". */
    private static String address(String field) {
        int end = field.indexOf('@');
        return end < 0 ? field : field.substring(0, end);
    }

    Optional<Node> myself() {
        return nodes.stream().filter(Node::isMyself).findFirst();
    }

    Optional<Node> node(String address) {
        return nodes.stream().filter(n -> n.address().equals(address)).findFirst();
    }

    Optional<Node> owner(int slot) {
        return nodes.stream().filter(n -> n.isMaster() && n.serves(slot)).findFirst();
    }

    /** Masters that serve at least one slot, ordered by their first slot. */
    List<Node> slotOwners() {
        return nodes.stream()
                .filter(n -> n.isMaster() && !n.slots().isEmpty())
                .sorted(Comparator.comparingInt(n -> n.slots().get(0).first()))
                .toList();
    }

    List<Node> replicasOf(Node master) {
        return nodes.stream().filter(n -> master.id().equals(n.masterId())).toList();
    }

    /** How many slots have an owner in this view. */
    int assignedSlots() {
        return slotOwners().stream()
                .flatMap(n -> n.slots().stream())
                .mapToInt(r -> r.last() - r.first() + 1)
                .sum();
    }

    /**
     * Who serves which slots and what each of the given nodes is (master, or replica of whom), written
     * the same way by every node that agrees, to compare views. Nodes outside the given ones are left
     * out: views of a dead node's role need not converge.
     */
    String topology(Collection<String> among) {
        String roles = among.stream()
                .sorted()
                .map(address -> address + "=" + node(address).map(this::role).orElse("unknown"))
                .collect(Collectors.joining(" "));
        return "slots [" + slotMap() + "] roles [" + roles + "]";
    }

    private String role(Node node) {
        if (node.isMaster()) {
            return "master";
        }
        String master = nodes.stream()
                .filter(n -> n.id().equals(node.masterId()))
                .map(Node::address)
                .findFirst()
                .orElse(node.masterId());
        return "replica-of-" + master;
    }

    /** Who serves which slots. */
    String slotMap() {
        return slotOwners().stream()
                .map(n -> n.address() + "=" + n.slots().stream()
                        .sorted(Comparator.comparingInt(SlotRange::first))
                        .map(SlotRange::toString)
                        .collect(Collectors.joining(",")))
                .collect(Collectors.joining(" "));
    }
}
