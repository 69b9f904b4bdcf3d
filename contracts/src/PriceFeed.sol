// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title PriceFeed
/// @notice A USD price feed for the local devnet with Chainlink's AggregatorV3Interface, so the
/// service reads it exactly as it would read a Chainlink aggregator on a real chain. The owner
/// posts answers; every post starts a new round. setRound takes an explicit updatedAt so that
/// tests can make a feed look stale (or fresh) without waiting.
contract PriceFeed {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    uint256 public constant version = 4;

    address public immutable owner;
    uint8 public immutable decimals;
    string public description;

    uint80 public latestRound;
    mapping(uint80 => Round) private rounds;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);

    error NotOwner();
    error NoDataPresent();

    constructor(address owner_, uint8 decimals_, string memory description_, int256 initialAnswer) {
        owner = owner_;
        decimals = decimals_;
        description = description_;
        _newRound(initialAnswer, block.timestamp);
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    /// @notice Posts answer as a new round updated now.
    function setAnswer(int256 answer) external onlyOwner {
        _newRound(answer, block.timestamp);
    }

    /// @notice Posts answer as a new round with the given updatedAt, which may lie in the past
    /// (a stale feed), in the future or be 0 (a round that never completed), as a test needs.
    function setRound(int256 answer, uint256 updatedAt) external onlyOwner {
        _newRound(answer, updatedAt);
    }

    function latestAnswer() external view returns (int256) {
        return rounds[latestRound].answer;
    }

    function latestTimestamp() external view returns (uint256) {
        return rounds[latestRound].updatedAt;
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }

    function getRoundData(uint80 roundId_)
        public
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        if (roundId_ == 0 || roundId_ > latestRound) revert NoDataPresent();
        Round storage r = rounds[roundId_];
        return (roundId_, r.answer, r.startedAt, r.updatedAt, roundId_);
    }

    function _newRound(int256 answer, uint256 updatedAt) private {
        uint80 id = latestRound + 1;
        latestRound = id;
        rounds[id] = Round({answer: answer, startedAt: block.timestamp, updatedAt: updatedAt});
        emit NewRound(id, msg.sender, block.timestamp);
        emit AnswerUpdated(answer, id, updatedAt);
    }
}
