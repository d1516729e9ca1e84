package dev.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** A bad spec must fail when it is written down, with a message naming what is wrong. */
class LimitSpecTests {

    @Test
    void acceptsSensibleValues() {
        LimitSpec spec = LimitSpec.of(5, Duration.ofSeconds(10));
        assertThat(spec.limit()).isEqualTo(5);
        assertThat(spec.burst()).as("burst defaults to the limit").isEqualTo(5);
        assertThat(spec.windowMicros()).isEqualTo(10_000_000L);
        assertThat(spec.withBurst(8)).isEqualTo(new LimitSpec(5, Duration.ofSeconds(10), 8));
        assertThat(LimitSpec.of(1, Duration.ofNanos(1_000)).windowMicros()).isEqualTo(1);
        assertThat(LimitSpec.of(LimitSpec.MAX_LIMIT, LimitSpec.MAX_WINDOW).limit()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void rejectsLimitBelowOneOrAboveTheMaximum() {
        assertThatThrownBy(() -> LimitSpec.of(0, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("limit")
            .hasMessageContaining("0");
        assertThatThrownBy(() -> LimitSpec.of(-5, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("limit");
        assertThatThrownBy(() -> LimitSpec.of(LimitSpec.MAX_LIMIT + 1, Duration.ofSeconds(1)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("limit");
    }

    @Test
    void rejectsWindowsOutsideOneMicrosecondToMaxWindow() {
        assertThatThrownBy(() -> LimitSpec.of(5, Duration.ofSeconds(-10))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("window");
        assertThatThrownBy(() -> LimitSpec.of(5, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("window");
        assertThatThrownBy(() -> LimitSpec.of(5, Duration.ofNanos(999))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("window");
        assertThatThrownBy(() -> LimitSpec.of(5, LimitSpec.MAX_WINDOW.plusNanos(1000)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("window");
        assertThatThrownBy(() -> LimitSpec.of(5, null)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("window");
    }

    @Test
    void rejectsBurstBelowOneOrAboveTheMaximum() {
        LimitSpec spec = LimitSpec.of(5, Duration.ofSeconds(10));
        assertThatThrownBy(() -> spec.withBurst(0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("burst")
            .hasMessageContaining("0");
        assertThatThrownBy(() -> spec.withBurst(-1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("burst");
        assertThatThrownBy(() -> spec.withBurst(LimitSpec.MAX_LIMIT + 1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("burst");
    }

    @Test
    void rejectsWindowsWithAFractionOfAMicrosecond() {
        // Scripts count whole microseconds: 1500 ns would silently act as 1 us.
        assertThatThrownBy(() -> LimitSpec.of(5, Duration.ofNanos(1_500))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("whole number of microseconds");
        assertThat(LimitSpec.of(5, Duration.ofNanos(2_000)).window()).isEqualTo(Duration.ofNanos(2_000));
    }
}
