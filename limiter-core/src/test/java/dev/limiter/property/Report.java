package dev.limiter.property;

import java.time.Duration;
import java.util.List;

/** The text of a failed comparison: where it came from, the minimal sequence, and every answer at the step that differs. */
final class Report {

    private Report() {
    }

    static String of(Scenario original, Run first, Run minimal, List<Implementation> implementations) {
        Scenario scenario = minimal.scenario;
        StringBuilder text = new StringBuilder();
        text.append("Implementations disagree on ").append(original.name()).append('\n');
        text.append("  config: ").append(scenario.config()).append('\n');
        text.append("  start:  ").append(scenario.startMicros()).append(" us; times below are relative to it\n");
        text.append("  first disagreement at request #").append(first.disagreement()).append(" of ").append(original.ops().size())
            .append("; shrunk to ").append(scenario.ops().size()).append(" request(s):\n");
        int width = implementations.stream().mapToInt(i -> i.name().length()).max().orElse(0);
        for (int i = 0; i < minimal.steps.size(); i++) {
            Run.Step step = minimal.steps.get(i);
            text.append(String.format("  #%-3d %-40s at +%d us%n", i, step.op(), step.atMicros() - scenario.startMicros()));
            if (step.agrees()) {
                text.append("         all: ").append(step.outcomes().get(0)).append('\n');
            }
            else {
                for (int k = 0; k < implementations.size(); k++) {
                    text.append(String.format("         %-" + width + "s %s%n", implementations.get(k).name() + ":", step.outcomes().get(k)));
                }
            }
        }
        text.append("  as Java: ").append(asJava(scenario)).append('\n');
        return text.toString();
    }

    /** The minimal scenario as a constructor call, to paste into a regression test. */
    static String asJava(Scenario scenario) {
        StringBuilder ops = new StringBuilder();
        for (Op op : scenario.ops()) {
            String factory = switch (op.timing()) {
                case STEP -> "step";
                case AFTER_RETRY -> "afterRetry";
                case AFTER_RESET -> "afterReset";
            };
            ops.append(ops.length() > 0 ? ", " : "").append("Op.").append(factory).append('(').append(op.micros()).append("L, ")
                .append(javaString(op.key())).append(", ").append(op.permits()).append(')');
        }
        return "List.of(" + ops + ")";
    }

    /** A key as readable text: quoted, with escapes for what would not show. */
    static String key(String key) {
        if (key.length() > 24) {
            return javaString(key.substring(0, 12)) + "...(" + key.length() + " chars)";
        }
        return javaString(key);
    }

    private static String javaString(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            }
            else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04X", (int) c));
            }
            else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    static String micros(Duration duration) {
        return Run.micros(duration) + "us";
    }
}
