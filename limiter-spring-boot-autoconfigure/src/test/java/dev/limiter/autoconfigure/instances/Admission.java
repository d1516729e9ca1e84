package dev.limiter.autoconfigure.instances;

/**
 * One call an instance let through, as {@link InstanceCommands}' {@code soak} records it: the limiter,
 * the key, and the wall-clock time in microseconds (the machine clock Redis' {@code TIME} reads too) just
 * before the call and just after it returned. Whoever decided, the decision was made between the two.
 *
 * @param limiter the limiter's name
 * @param key the key the call was limited by
 * @param beforeMicros epoch microseconds just before the call
 * @param afterMicros epoch microseconds just after it returned
 * @param source what decided (a {@code DecisionSource} name), {@code ?} when not known: read only to
 *     explain a key that went over
 */
record Admission(String limiter, String key, long beforeMicros, long afterMicros, String source) {

    /** The first word of an admission's line in a soak's record file. */
    static final String TAG = "A";

    Admission {
        if (afterMicros < beforeMicros) {
            throw new IllegalArgumentException("returned before it was called: " + beforeMicros + " > " + afterMicros);
        }
    }

    Admission(String limiter, String key, long beforeMicros, long afterMicros) {
        this(limiter, key, beforeMicros, afterMicros, "?");
    }

    /** An admission at one instant, for synthetic lists. */
    static Admission at(String limiter, String key, long micros) {
        return new Admission(limiter, key, micros, micros);
    }

    /** One line of a record file: {@code A <limiter> <key> <before> <after> <source>}. */
    String line() {
        return TAG + " " + this.limiter + " " + this.key + " " + this.beforeMicros + " " + this.afterMicros + " " + this.source;
    }

    static Admission parse(String line) {
        String[] words = line.split(" ");
        if (words.length < 5 || words.length > 6 || !words[0].equals(TAG)) {
            throw new IllegalArgumentException("not an admission: " + line);
        }
        return new Admission(words[1], words[2], Long.parseLong(words[3]), Long.parseLong(words[4]),
                (words.length == 6) ? words[5] : "?");
    }

}
