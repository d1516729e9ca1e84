package dev.limiter.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/**
 * Every switch of the limiters between Redis and their failure policy, in order, read from the line
 * that {@code RedisAvailability} logs at each: a warning when limiters turn to their policy, an info
 * line when they use Redis again. A flapping limiter shows as many switches, however short each is,
 * which polling {@code isRedisAvailable()} would miss.
 */
final class RedisSwitches implements AutoCloseable {

    enum Switch {

        TO_POLICY, TO_REDIS

    }

    private static final String AVAILABILITY_LOGGER = "dev.limiter.redis.RedisAvailability";

    private final List<Switch> switches = new CopyOnWriteArrayList<>();

    private final Logger logger = (Logger) LoggerFactory.getLogger(AVAILABILITY_LOGGER);

    private final Level level = this.logger.getLevel();

    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {

        @Override
        protected void append(ILoggingEvent event) {
            if (event.getLevel() == Level.WARN) {
                RedisSwitches.this.switches.add(Switch.TO_POLICY);
            }
            else if (event.getLevel() == Level.INFO) {
                RedisSwitches.this.switches.add(Switch.TO_REDIS);
            }
        }

    };

    private RedisSwitches() {
        this.appender.start();
        this.logger.addAppender(this.appender);
        this.logger.setLevel(Level.INFO);
    }

    /** Records switches until closed. */
    static RedisSwitches record() {
        return new RedisSwitches();
    }

    /** How many switches so far. */
    int count() {
        return this.switches.size();
    }

    /** The switches after the first {@code count}. */
    List<Switch> since(int count) {
        List<Switch> all = List.copyOf(this.switches);
        return all.subList(Math.min(count, all.size()), all.size());
    }

    @Override
    public void close() {
        this.logger.detachAppender(this.appender);
        this.logger.setLevel(this.level);
        this.appender.stop();
    }

}
