package dev.limiter.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The slot computation on its own, against values published by Redis; TestRedisClusterTests asks Redis itself. */
class KeySlotTests {

    @Test
    void crc16IsTheXmodemVariantRedisUses() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);

        assertThat(KeySlot.crc16(check, 0, check.length)).isEqualTo(0x31C3); // Redis' crc16.c test vector
    }

    @Test
    void slotsOfKeysFromTheRedisDocumentation() {
        assertThat(KeySlot.of("foo")).isEqualTo(12182);
        assertThat(KeySlot.of("hello")).isEqualTo(866);
        assertThat(KeySlot.of("somekey")).isEqualTo(11058);
    }

    @Test
    void onlyTheFirstNonEmptyHashTagCounts() {
        assertThat(KeySlot.of("{user1000}.following")).isEqualTo(KeySlot.of("user1000"));
        assertThat(KeySlot.of("foo{bar}{zap}")).isEqualTo(KeySlot.of("bar"));
        assertThat(KeySlot.of("foo{{bar}}zap")).isEqualTo(KeySlot.of("{bar"));
        // An empty tag means no tag: the whole key is hashed.
        assertThat(KeySlot.of("foo{}{bar}")).isNotEqualTo(KeySlot.of("bar"));
    }
}
