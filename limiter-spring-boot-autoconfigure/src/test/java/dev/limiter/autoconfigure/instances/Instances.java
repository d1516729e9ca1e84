package dev.limiter.autoconfigure.instances;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Several {@link InstanceApp} JVMs, started together with the same properties, driven with the same
 * command at the same time, their whole output kept for assertions on their logs. Closing destroys
 * every JVM, whatever state it is in; every wait is bounded.
 *
 * <pre>{@code
 * try (Instances instances = Instances.start("exact", 3, properties)) {
 *     Round round = instances.round("gcra", "user-1", 100);
 *     assertThat(round.admitted()).isEqualTo(50);
 *     assertThat(instances.limiterWarnings()).isEmpty();
 * }
 * }</pre>
 */
final class Instances implements AutoCloseable {

    /** Longest the JVMs may take to start together: a cold Spring Boot context each, on a shared 2-core machine. */
    static final Duration STARTUP = Duration.ofSeconds(120);

    /** Longest a round or warm-up may take (the instances give up on their own after 120 s). */
    static final Duration COMMAND = Duration.ofSeconds(150);

    /** Each caller's pause between its calls during a warm-up. */
    static final long WARM_UP_PAUSE_MILLIS = 5;

    /** A line logged at WARN or ERROR by a logger of Limiter, in the pattern of instance-logback.xml. */
    private static final Pattern LIMITER_WARNING = Pattern.compile("^\\S+ (WARN|ERROR)\\s+dev\\.limiter\\.\\S*.*");

    /** Where each instance's output is written when it is closed, for a look after a failure. */
    private static final Path LOGS = Path.of("target", "instance-logs");

    private final String name;

    private final List<Child> children;

    private Instances(String name, List<Child> children) {
        this.name = name;
        this.children = children;
    }

    /**
     * Starts {@code count} instances with the same Spring properties and returns once every one is ready.
     *
     * @param name names the files {@code target/instance-logs/<name>-<index>.log} that keep each instance's
     *     output once they are closed
     * @param count how many instances
     * @param properties {@code name=value} pairs, given to each instance as {@code --name=value}
     * @throws IllegalStateException if an instance exits or is not ready within {@link #STARTUP}; its output
     *     is in the message
     */
    static Instances start(String name, int count, List<String> properties) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                InstanceApp.class.getName()));
        properties.forEach((property) -> command.add("--" + property));
        List<Child> children = new ArrayList<>();
        Instances instances = new Instances(name, children);
        try {
            for (int i = 0; i < count; i++) {
                children.add(new Child(i, new ProcessBuilder(command).redirectErrorStream(true).start()));
            }
            long deadline = System.nanoTime() + STARTUP.toNanos();
            for (Child child : children) {
                child.awaitReady(deadline);
            }
            return instances;
        }
        catch (IOException ex) {
            instances.close();
            throw new UncheckedIOException("cannot start " + java, ex);
        }
        catch (RuntimeException | Error ex) {
            instances.close();
            throw ex;
        }
    }

    /** How many instances run. */
    int count() {
        return this.children.size();
    }

    /** A round on every instance at once: {@code callsPerInstance} calls of one limiter on one key, by 16 callers each. */
    Round round(String limiter, String key, int callsPerInstance) {
        return run("round " + limiter + " " + key + " " + callsPerInstance, COMMAND);
    }

    /**
     * Calls of every limiter on throwaway keys, on every instance, for {@code duration}, each caller pausing
     * {@value #WARM_UP_PAUSE_MILLIS} ms between its calls: enough calls for the JIT, without 48 callers
     * keeping both cores of the machine busy, which would make a healthy Redis look slow.
     */
    Round warmUp(Duration duration) {
        return run("warmup " + duration.toMillis() + " " + WARM_UP_PAUSE_MILLIS, COMMAND.plus(duration));
    }

    /** Sends a command to every instance at once and waits for their results. */
    Round run(String command, Duration timeout) {
        send(command);
        return await(timeout);
    }

    /** Sends a command to every instance at once, without waiting; {@link #await} collects the results. */
    void send(String command) {
        for (Child child : this.children) {
            child.send(command);
        }
    }

    /** Sends a command to instance {@code index} alone, without waiting; {@link #await(int, Duration)} collects its result. */
    void send(int index, String command) {
        this.children.get(index).send(command);
    }

    /** The result of the command last sent to instance {@code index}, waiting at most {@code timeout}. */
    InstanceResult await(int index, Duration timeout) {
        return this.children.get(index).awaitResult(System.nanoTime() + timeout.toNanos());
    }

    /** The results of the command last sent, one per instance, waiting at most {@code timeout} for all. */
    Round await(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<InstanceResult> results = new ArrayList<>();
        for (Child child : this.children) {
            results.add(child.awaitResult(deadline));
        }
        return new Round(results);
    }

    /** Everything instance {@code index} printed so far: its log and its protocol lines. */
    String output(int index) {
        return String.join("\n", this.children.get(index).lines);
    }

    /** The lines Limiter's loggers wrote at WARN or ERROR, on any instance, each prefixed by its instance. */
    List<String> limiterWarnings() {
        return linesMatching(LIMITER_WARNING);
    }

    /** The lines of any instance matching {@code pattern}, each prefixed by its instance. */
    List<String> linesMatching(Pattern pattern) {
        List<String> found = new ArrayList<>();
        for (Child child : this.children) {
            for (String line : child.lines) {
                if (pattern.matcher(line).matches()) {
                    found.add("#" + child.index + " " + line);
                }
            }
        }
        return found;
    }

    /** Asks every instance to quit, then destroys those still running a few seconds later. */
    @Override
    public void close() {
        for (Child child : this.children) {
            child.quit();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Child child : this.children) {
            child.destroy(deadline);
        }
        for (Child child : this.children) {
            try {
                Files.createDirectories(LOGS);
                Files.write(LOGS.resolve(this.name + "-" + child.index + ".log"), child.lines);
            }
            catch (IOException ex) {
                // Only for a look after the fact.
            }
        }
    }

    @Override
    public String toString() {
        return this.children.stream().map((child) -> "#" + child.index + " pid " + child.process.pid())
            .collect(Collectors.joining(", ", "Instances[", "]"));
    }

    /** One instance JVM, its output read line by line on a thread of its own. */
    private static final class Child {

        final int index;

        final Process process;

        final List<String> lines = new CopyOnWriteArrayList<>();

        final CountDownLatch ready = new CountDownLatch(1);

        final BlockingQueue<String> results = new LinkedBlockingQueue<>();

        Child(int index, Process process) {
            this.index = index;
            this.process = process;
            Thread reader = new Thread(this::read, "instance-" + index + "-output");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    this.lines.add(line);
                    if (line.equals(InstanceApp.READY)) {
                        this.ready.countDown();
                    }
                    else if (line.startsWith(InstanceResult.PREFIX)) {
                        this.results.add(line);
                    }
                }
            }
            catch (IOException ex) {
                // The process is gone.
            }
        }

        void awaitReady(long deadline) {
            try {
                while (!this.ready.await(100, TimeUnit.MILLISECONDS)) {
                    if (!this.process.isAlive()) {
                        throw new IllegalStateException("instance #" + this.index + " exited with " + this.process.exitValue()
                                + " before it was ready:\n" + tail());
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("instance #" + this.index + " not ready within " + STARTUP + ":\n" + tail());
                    }
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting instances", ex);
            }
        }

        void send(String command) {
            try {
                OutputStream in = this.process.getOutputStream();
                in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
                in.flush();
            }
            catch (IOException ex) {
                throw new IllegalStateException("instance #" + this.index + " does not take commands (exited?):\n" + tail(), ex);
            }
        }

        InstanceResult awaitResult(long deadline) {
            try {
                String line = this.results.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new IllegalStateException("instance #" + this.index + " gave no result in time"
                            + (this.process.isAlive() ? "" : " (exited with " + this.process.exitValue() + ")") + ":\n" + tail());
                }
                InstanceResult result = InstanceResult.parse(this.index, line);
                if (result.failure() != null) {
                    throw new IllegalStateException("instance #" + this.index + " could not run " + result.command() + ": "
                            + result.failure() + "\n" + tail());
                }
                return result;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for instance #" + this.index, ex);
            }
        }

        void quit() {
            try {
                OutputStream in = this.process.getOutputStream();
                in.write("quit\n".getBytes(StandardCharsets.UTF_8));
                in.close();
            }
            catch (IOException ex) {
                // Already gone.
            }
        }

        void destroy(long deadline) {
            try {
                if (!this.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    this.process.destroyForcibly();
                    this.process.waitFor(5, TimeUnit.SECONDS);
                }
            }
            catch (InterruptedException ex) {
                this.process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }

        private String tail() {
            List<String> all = List.copyOf(this.lines);
            return String.join("\n", all.subList(Math.max(0, all.size() - 60), all.size()));
        }

    }

}
