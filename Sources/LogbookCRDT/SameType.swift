/// `value` as `Target` when `Source` is that very type, else nil.
///
/// Generic code that has checked its type parameters uses this to hand a concrete value back
/// without `as?`, whose dynamic cast costs about as much as reading a whole change (and walks
/// every element of an array). Once specialized, the test and the cast both fold away.
@inlinable @inline(__always)
func sameType<Source, Target>(_ value: Source, as target: Target.Type) -> Target? {
    guard Source.self == Target.self else { return nil }
    return unsafeBitCast(value, to: Target.self)
}
