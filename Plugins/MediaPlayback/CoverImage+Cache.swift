extension CoverImage {
    /// The last cover made smaller and what it became: an album's tracks carry the same cover, or
    /// share their folder's, which is then decoded, scaled and encoded once rather than at every
    /// track (70–110 ms of a skip's wait for a 1,400–3,000-pixel JPEG of noise, by ffmpeg here).
    /// Confined to one thread.
    public struct Cache {
        private var last: (original: [UInt8], fitted: [UInt8]?)?
        /// How many covers it made smaller: those it did not find.
        public private(set) var fittings = 0

        public init() {}

        /// `CoverImage.fitted(bytes)`, from the cache when `bytes` are the last ones made smaller.
        public mutating func fitted(_ bytes: [UInt8]) -> [UInt8]? {
            guard CoverImage.needsFitting(bytes) else { return bytes }
            if let last, last.original == bytes { return last.fitted }
            fittings += 1
            let fitted = CoverImage.fitted(bytes)
            last = (bytes, fitted)
            return fitted
        }
    }
}
