/// A Seattle wall-clock time as the SODA feed writes it (`yyyy-MM-ddTHH:mm:ss.SSS`, no zone).
///
/// Kept as the fields say, never shifted: minutes between two times and the weekday come
/// from civil-calendar arithmetic on the fields themselves, so no time zone or DST rule is
/// involved.
public struct WallClockTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The year.
    public var year: Int
    /// The month, 1–12.
    public var month: Int
    /// The day of the month.
    public var day: Int
    /// The hour, 0–23.
    public var hour: Int
    /// The minute.
    public var minute: Int
    /// The second.
    public var second: Int
    /// The millisecond.
    public var millisecond: Int

    /// A time from its fields; the caller guarantees they form a real date and time.
    public init(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
        millisecond: Int = 0
    ) {
        precondition(
            (1...12).contains(month) && (1...Self.daysIn(month: month, year: year)).contains(day),
            "no such date")
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
    }

    /// Parses `yyyy-MM-ddTHH:mm:ss.SSS` (the fraction may be absent); nil for anything else,
    /// including impossible dates such as February 30.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 19 || bytes.count == 23 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var millisecond = 0
        if bytes.count == 23 {
            guard bytes[19] == UInt8(ascii: "."), let fraction = number(20..<23) else { return nil }
            millisecond = fraction
        }
        guard (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        self.init(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            millisecond: millisecond)
    }

    /// Days since 1970-01-01 of the civil date (proleptic Gregorian).
    public var dayNumber: Int {
        // Howard Hinnant's days_from_civil.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Minutes since 1970-01-01T00:00 of these wall-clock fields (seconds dropped).
    public var minuteNumber: Int { dayNumber * 1440 + hour * 60 + minute }

    /// Seconds since 1970-01-01T00:00:00 of these wall-clock fields (fraction dropped).
    public var secondNumber: Int { minuteNumber * 60 + second }

    /// Whole minutes from `self` to `later` (rounded toward zero).
    public func wholeMinutes(until later: WallClockTime) -> Int {
        (later.secondNumber - secondNumber) / 60
    }

    /// 1 = Sunday … 7 = Saturday.
    public var weekday: Int {
        // 1970-01-01 was a Thursday (5).
        ((dayNumber % 7 + 7) % 7 + 4) % 7 + 1
    }

    /// `yyyy-MM-ddTHH:mm:ss.SSS`.
    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millisecond, 3))"
    }

    /// Chronological (or key) order.
    public static func < (lhs: WallClockTime, rhs: WallClockTime) -> Bool {
        (lhs.dayNumber, lhs.hour, lhs.minute, lhs.second, lhs.millisecond)
            < (rhs.dayNumber, rhs.hour, rhs.minute, rhs.second, rhs.millisecond)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
