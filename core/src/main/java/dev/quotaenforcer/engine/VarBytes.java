package dev.quotaenforcer.engine;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Compact binary fields, as the stored key states and remembered decisions are written: varints, zig-zag signed. */
public final class VarBytes {

    private VarBytes() {
    }

    /** The most bytes a varint of 64 bits takes. */
    private static final int MAX_VARINT_BYTES = 10;

    /** A growable byte buffer; unlike ByteArrayOutputStream it takes no lock per byte written. */
    public static final class Writer {
        private byte[] bytes;
        private int size;

        public Writer() {
            this(32);
        }

        /** A writer whose first buffer holds {@code capacity} bytes, so what is known to be longer is not copied as it grows. */
        public Writer(int capacity) {
            bytes = new byte[capacity];
        }

        public void write(int value) {
            if (size == bytes.length) {
                bytes = Arrays.copyOf(bytes, size * 2);
            }
            bytes[size++] = (byte) value;
        }

        public byte[] toByteArray() {
            return Arrays.copyOf(bytes, size);
        }

        /** The bytes written so far. */
        public int size() {
            return size;
        }

        /** Forgets what was written, keeping the buffer: a writer reused record after record allocates nothing. */
        public Writer reset() {
            size = 0;
            return this;
        }

        /** Copies what was written into {@code to} from {@code at}. */
        public void copyTo(byte[] to, int at) {
            System.arraycopy(bytes, 0, to, at, size);
        }

        public void unsigned(long value) {
            if (bytes.length - size < MAX_VARINT_BYTES) {
                bytes = Arrays.copyOf(bytes, Math.max(size * 2, size + MAX_VARINT_BYTES));
            }
            size = putUnsigned(bytes, size, value);
        }

        public void signed(long value) {
            unsigned((value << 1) ^ (value >> 63));
        }

        public void bytes(byte[] value) {
            bytes(value, 0, value.length);
        }

        /** The bytes {@code value[from, from + length)}. */
        public void bytes(byte[] value, int from, int length) {
            if (size + length > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(size * 2, size + length));
            }
            System.arraycopy(value, from, bytes, size, length);
            size += length;
        }

        /** Text as its UTF-8 length + 1 (0 for null), then its UTF-8 bytes. */
        public void text(String text) {
            if (text == null) {
                unsigned(0);
                return;
            }
            if (isAscii(text)) {
                // Its chars are its UTF-8 bytes: written as they are, without encoding the text into an array first.
                unsigned(text.length() + 1L);
                for (int i = 0; i < text.length(); i++) {
                    write(text.charAt(i));
                }
                return;
            }
            byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
            unsigned(utf8.length + 1L);
            bytes(utf8);
        }

        private static boolean isAscii(String text) {
            for (int i = 0; i < text.length(); i++) {
                if (text.charAt(i) >= 0x80) {
                    return false;
                }
            }
            return true;
        }

        public void fixedInt(int value) {
            write(value >>> 24);
            write(value >>> 16);
            write(value >>> 8);
            write(value);
        }
    }

    /** How many bytes {@link Writer#unsigned} writes for {@code value}. */
    public static int unsignedSize(long value) {
        int size = 1;
        while ((value & ~0x7FL) != 0) {
            value >>>= 7;
            size++;
        }
        return size;
    }

    /** Writes {@code value} as {@link Writer#unsigned} does, into {@code to} from {@code at}; returns where it ended. */
    public static int putUnsigned(byte[] to, int at, long value) {
        if (value < 0) {
            throw new IllegalArgumentException("negative field " + value);
        }
        while ((value & ~0x7FL) != 0) {
            to[at++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        to[at++] = (byte) value;
        return at;
    }

    public static final class Reader {
        private final byte[] bytes;
        private final int end;
        private int position;

        public Reader(byte[] bytes) {
            this(bytes, 0, bytes.length);
        }

        /** A reader of {@code bytes[from, to)} alone. */
        public Reader(byte[] bytes, int from, int to) {
            this.bytes = bytes;
            this.position = from;
            this.end = to;
        }

        public boolean hasMore() {
            return position < end;
        }

        /** Where the next byte is read from. */
        public int position() {
            return position;
        }

        /** Passes over the next {@code length} bytes. */
        public void skip(int length) {
            if (length < 0 || length > end - position) {
                throw new IllegalArgumentException(length + " bytes wanted at byte " + position + " of " + end);
            }
            position += length;
        }

        public int read() {
            if (position >= end) {
                throw new IllegalArgumentException("truncated at byte " + position);
            }
            return bytes[position++] & 0xFF;
        }

        public long unsigned() {
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

        public long signed() {
            long raw = unsigned();
            return (raw >>> 1) ^ -(raw & 1);
        }

        /** The next {@code length} bytes, copied. */
        public byte[] bytes(int length) {
            int from = position;
            skip(length);
            return Arrays.copyOfRange(bytes, from, position);
        }

        public int fixedInt() {
            return read() << 24 | read() << 16 | read() << 8 | read();
        }
    }
}
