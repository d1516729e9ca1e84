package dev.limiter.test;

import java.nio.charset.StandardCharsets;

/** The Redis Cluster hash slot of a key: CRC16 (XMODEM) of the key, or of its hash tag, modulo 16384. */
final class KeySlot {

    static final int SLOTS = 16384;

    private KeySlot() {
    }

    static int of(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = bytes.length;
        // As Redis does: the first '{', the first '}' after it, and only a non-empty tag counts.
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        return crc16(bytes, from, to) & (SLOTS - 1);
    }

    private static int indexOf(byte[] bytes, byte wanted, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    /** CRC-16/XMODEM: polynomial 0x1021, initial value 0, no reflection (Redis' crc16.c). */
    static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xFFFF;
    }
}
