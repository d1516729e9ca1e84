package dev.limiter.internal.algorithm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

import dev.limiter.Algorithm;

/**
 * The algorithms' Lua scripts as Redis runs them, assembled from their resources: a line
 * {@code --@include <name>} is replaced by the resource it names, so each rule (the verdict over several
 * limits, the reply, the TTL, a bucket's refill) is written once in a fragment and the script Redis
 * compiles is still straight-line code, with no function calls added (docs/algorithms.md).
 */
public final class Scripts {

    /** Where the algorithms' scripts and their fragments lie on the class path. */
    static final String FOLDER = "dev/limiter/internal/algorithm/";

    private static final String INCLUDE = "--@include ";

    /** Stands for the algorithm's name in an included name, for templates such as limiter-redis' lease.lua. */
    private static final String ALGORITHM = "{algorithm}";

    private Scripts() {
    }

    /** {@code algorithm}'s decision script, assembled: the text EVALSHA runs. */
    public static String decision(Algorithm algorithm) {
        return assemble("/" + FOLDER + algorithm.configName() + ".lua", algorithm);
    }

    /** {@code algorithm}'s refund script, which gives permits back to a key, assembled. */
    public static String refund(Algorithm algorithm) {
        return assemble("/" + FOLDER + algorithm.configName() + "-refund.lua", algorithm);
    }

    /**
     * {@code algorithm}'s charge script, which takes permits from a key whatever its limits say (into debt),
     * assembled: {@code charge.lua} around the algorithm's decision script.
     */
    public static String charge(Algorithm algorithm) {
        return assemble("/" + FOLDER + "charge.lua", algorithm);
    }

    /**
     * The Lua resource at {@code location} with every line {@code --@include <name>} replaced by the
     * resource it names, itself assembled, each of its lines indented as the include line is. A name
     * starting with {@code /} is a class path location; any other is relative to the including
     * resource's folder (as {@link Class#getResource} resolves names). {@code {algorithm}} in a name
     * stands for {@code algorithm}'s name, such as {@code token-bucket}.
     *
     * @param location a class path location starting with {@code /}, such as {@code /dev/limiter/redis/batch.lua}
     * @param algorithm the algorithm {@code {algorithm}} names
     */
    public static String assemble(String location, Algorithm algorithm) {
        StringBuilder script = new StringBuilder();
        append(script, location, "", algorithm.configName(), new ArrayDeque<>());
        return script.toString();
    }

    private static void append(StringBuilder script, String location, String indent, String algorithm, Deque<String> including) {
        if (including.contains(location)) {
            throw new IllegalStateException("Lua script " + location + " includes itself: " + String.join(" <- ", including));
        }
        including.push(location);
        String folder = location.substring(0, location.lastIndexOf('/') + 1);
        String text = read(location);
        // Every line, the last one too, ends with a newline in the script.
        for (String line : text.substring(0, text.length() - (text.endsWith("\n") ? 1 : 0)).split("\n", -1)) {
            String directive = line.strip();
            if (directive.startsWith(INCLUDE)) {
                String name = directive.substring(INCLUDE.length()).strip().replace(ALGORITHM, algorithm);
                String lineIndent = line.substring(0, line.indexOf(INCLUDE));
                append(script, name.startsWith("/") ? name : folder + name, indent + lineIndent, algorithm, including);
            }
            else {
                script.append(line.isEmpty() ? "" : indent).append(line).append('\n');
            }
        }
        including.pop();
    }

    /** A class path resource's text, {@code location} starting with {@code /}. */
    private static String read(String location) {
        try (InputStream in = Scripts.class.getResourceAsStream(location)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + location + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Cannot read Lua script " + location, ex);
        }
    }
}
