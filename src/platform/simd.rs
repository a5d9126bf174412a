//! Small SIMD building blocks with one portable signature each: an SSE2 version on x86-64
//! (SSE2 is part of the x86-64 baseline, so no run-time detection is needed) and a SWAR version
//! everywhere else. Run-time-dispatched AVX2/AVX-512 kernels (wc) live beside these.

/// The instruction set the block masks use, for `wc --debug`.
pub const LINE_KERNEL: &str = if cfg!(target_arch = "x86_64") { "sse2" } else { "portable" };

/// Bit i of the result is set when `block[i] == byte`.
#[inline]
pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
    imp::eq_mask64(block, byte)
}

/// Bit i of the result is set when `block[i]` is below 0x20, 0x7f, or above: the bytes
/// `cat -v` shows in `^` or `M-` notation (and TAB and LF).
#[inline]
pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
    imp::control_or_high_mask64(block)
}

/// Bit i of the result is set when `block[i]` is ASCII white space (TAB, LF, VT, FF, CR, SPACE),
/// or 0xA0 when `with_a0`.
#[inline]
pub fn ascii_space_mask64(block: &[u8; 64], with_a0: bool) -> u64 {
    let mut mask = eq_mask64(block, b' ');
    for byte in 9..=13 {
        mask |= eq_mask64(block, byte);
    }
    if with_a0 {
        mask |= eq_mask64(block, 0xa0);
    }
    mask
}

/// How many bytes of `buf` equal `byte`.
pub fn count_byte(buf: &[u8], byte: u8) -> u64 {
    imp::count_byte(buf, byte)
}

/// Bit i of the result is set when `block[i]` is 0x80 or above (not ASCII).
#[inline]
pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
    imp::high_bit_mask64(block)
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi64, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_sad_epu8, _mm_set1_epi8, _mm_setzero_si128, _mm_srli_si128, _mm_sub_epi8,
    };

    pub fn count_byte(buf: &[u8], byte: u8) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { count_matching_sse2(buf, |v| _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8)), |b| b == byte) }
    }

    /// Counts the bytes whose lane `matches` sets to 0xff: the 0xff lanes (-1) are subtracted
    /// into byte counters, which are summed into 64-bit lanes every 255 blocks.
    #[target_feature(enable = "sse2")]
    fn count_matching_sse2(buf: &[u8], matches: impl Fn(__m128i) -> __m128i, scalar: impl Fn(u8) -> bool) -> u64 {
        let mut total = _mm_setzero_si128();
        let mut blocks = buf.chunks_exact(16);
        loop {
            let mut counters = _mm_setzero_si128();
            let mut n = 0;
            for block in blocks.by_ref().take(255) {
                // SAFETY: `block` is 16 readable bytes; no alignment is required.
                let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
                counters = _mm_sub_epi8(counters, matches(v));
                n += 1;
            }
            total = _mm_add_epi64(total, _mm_sad_epu8(counters, _mm_setzero_si128()));
            if n < 255 {
                break;
            }
        }
        let sum = _mm_cvtsi128_si64(total) as u64 + _mm_cvtsi128_si64(_mm_srli_si128(total, 8)) as u64;
        sum + blocks.remainder().iter().filter(|&&b| scalar(b)).count() as u64
    }

    #[inline]
    pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { high_bit_mask64_sse2(block) }
    }

    #[target_feature(enable = "sse2")]
    fn high_bit_mask64_sse2(block: &[u8; 64]) -> u64 {
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            mask |= (_mm_movemask_epi8(v) as u32 as u64) << (16 * k);
        }
        mask
    }

    #[inline]
    pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { control_or_high_mask64_sse2(block) }
    }

    #[target_feature(enable = "sse2")]
    fn control_or_high_mask64_sse2(block: &[u8; 64]) -> u64 {
        // As signed bytes, 0x80..=0xff are negative: one "less than 0x20" covers both ends.
        let space = _mm_set1_epi8(0x20);
        let del = _mm_set1_epi8(0x7f);
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            let special = _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del));
            mask |= (_mm_movemask_epi8(special) as u32 as u64) << (16 * k);
        }
        mask
    }

    #[inline]
    pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { eq_mask64_sse2(block, byte) }
    }

    #[target_feature(enable = "sse2")]
    fn eq_mask64_sse2(block: &[u8; 64], byte: u8) -> u64 {
        let needle = _mm_set1_epi8(byte as i8);
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            let bits = _mm_movemask_epi8(_mm_cmpeq_epi8(v, needle)) as u32 as u64;
            mask |= bits << (16 * k);
        }
        mask
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    pub fn count_byte(buf: &[u8], byte: u8) -> u64 {
        buf.iter().filter(|&&b| b == byte).count() as u64
    }

    #[inline]
    pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
        block.iter().enumerate().fold(0, |mask, (i, &b)| mask | (u64::from(b >> 7) << i))
    }

    #[inline]
    pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
        let mut mask = 0u64;
        for (i, &b) in block.iter().enumerate() {
            mask |= u64::from(!(0x20..0x7f).contains(&b)) << i;
        }
        mask
    }

    #[inline]
    pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let spread = u64::from(byte) * 0x0101_0101_0101_0101;
        let mut mask = 0u64;
        for (k, word) in block.chunks_exact(8).enumerate() {
            // An exact zero-byte test of word ^ byte, high bits gathered into one byte.
            let t = u64::from_le_bytes(word.try_into().unwrap()) ^ spread;
            let zero_high_bits = !(((t & LOW7) + LOW7) | t | LOW7);
            mask |= ((zero_high_bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
        }
        mask
    }
}

#[cfg(test)]
mod tests {
    use super::{control_or_high_mask64, count_byte, eq_mask64};

    #[test]
    fn counts_match_a_plain_count_for_every_length() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for len in (0..300).chain([4079, 4080, 4081, 9999, 10_000]) {
            let buf = &data[..len];
            assert_eq!(count_byte(buf, b'\n'), buf.iter().filter(|&&b| b == b'\n').count() as u64);
            assert_eq!(count_byte(buf, 0x9b), buf.iter().filter(|&&b| b == 0x9b).count() as u64);
        }
        // More than 255 * 16 matching bytes in a row (the byte counters must not wrap).
        let all = vec![b'\n'; 100_000];
        assert_eq!(count_byte(&all, b'\n'), 100_000);
    }

    #[test]
    fn control_or_high_mask_marks_exactly_those_bytes() {
        for start in 0..4u16 {
            let block: [u8; 64] = std::array::from_fn(|i| (start as usize * 64 + i) as u8);
            let want: u64 = block.iter().enumerate().map(|(i, &b)| u64::from(!(0x20..0x7f).contains(&b)) << i).sum();
            assert_eq!(control_or_high_mask64(&block), want);
        }
    }

    #[test]
    fn mask_marks_exactly_the_matching_bytes() {
        let mut block = [0u8; 64];
        for seed in 0..2000u64 {
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            for b in block.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = [b'\n', b'\n' ^ 0x80, 0x0b, 0x09, 0xff, 0, x as u8][(x >> 40) as usize % 7];
            }
            let want: u64 = block.iter().enumerate().map(|(i, &b)| u64::from(b == b'\n') << i).sum();
            assert_eq!(eq_mask64(&block, b'\n'), want);
        }
    }
}
