/** Greedy word wrap of plain text to lines of at most `width` characters (longer words stay whole). */
export function wrap (text, width) {
    if (!Number.isInteger(width) || width < 1) {
        throw new RangeError('width must be a positive integer')
    }
    return text
        .split('\n')
        .map((paragraph) => {
            const lines = []
            let line = ''
            for (const word of paragraph.split(/\s+/).filter(Boolean)) {
                if (line && line.length + 1 + word.length > width) {
                    lines.push(line)
                    line = word
                } else {
                    line = line ? `${line} ${word}` : word
                }
            }
            lines.push(line)
            return lines.join('\n')
        })
        .join('\n')
}
