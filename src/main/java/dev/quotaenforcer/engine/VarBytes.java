package dev.quotaenforcer.engine;

import java.util.Arrays;

/** Compact binary fields, as the stored key states and remembered decisions are written: varints, zig-zag signed. */
final class VarBytes {

    private VarBytes() {
    }

    /** A growable byte buffer; unlike ByteArrayOutputStream it takes no lock per byte written. */
    static final class Writer {
        private byte[] bytes = new byte[32];
        private int size;

        void write(int value) {
            if (size == bytes.length) {
                bytes = Arrays.copyOf(bytes, size * 2);
            }
            bytes[size++] = (byte) value;
        }

        byte[] toByteArray() {
            return Arrays.copyOf(bytes, size);
        }

        void unsigned(long value) {
            if (value < 0) {
                throw new IllegalArgumentException("negative field " + value);
            }
            while ((value & ~0x7FL) != 0) {
                write((int) ((value & 0x7F) | 0x80));
                value >>>= 7;
            }
            write((int) value);
        }

        void signed(long value) {
            unsigned((value << 1) ^ (value >> 63));
        }

        void fixedInt(int value) {
            write(value >>> 24);
            write(value >>> 16);
            write(value >>> 8);
            write(value);
        }
    }

    static final class Reader {
        private final byte[] bytes;
        private int position;

        Reader(byte[] bytes) {
            this.bytes = bytes;
        }

        boolean hasMore() {
            return position < bytes.length;
        }

        int read() {
            if (position >= bytes.length) {
                throw new IllegalArgumentException("truncated at byte " + position);
            }
            return bytes[position++] & 0xFF;
        }

        long unsigned() {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int b = read();
                value |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
            }
            throw new IllegalArgumentException("varint longer than 64 bits at byte " + position);
        }

        long signed() {
            long raw = unsigned();
            return (raw >>> 1) ^ -(raw & 1);
        }

        int fixedInt() {
            return read() << 24 | read() << 16 | read() << 8 | read();
        }
    }
}
